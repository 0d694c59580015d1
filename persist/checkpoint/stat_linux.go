package checkpoint

import (
	"io/fs"
	"syscall"
)

// statOf extracts what the stat cache compares: size, mtime, and on Linux
// ctime and inode (a chmod or an in-place rewrite within one mtime tick
// changes ctime; a replaced file changes inode).
func statOf(info fs.FileInfo) cacheEntry {
	c := cacheEntry{Size: info.Size(), MTime: info.ModTime().UnixNano()}
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		c.CTime = st.Ctim.Nano()
		c.Ino = st.Ino
	}
	return c
}
