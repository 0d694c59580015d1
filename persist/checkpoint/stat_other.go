//go:build !linux

package checkpoint

import "io/fs"

// statOf extracts what the stat cache compares: size and mtime (mode is
// added by the caller).
func statOf(info fs.FileInfo) cacheEntry {
	return cacheEntry{Size: info.Size(), MTime: info.ModTime().UnixNano()}
}
