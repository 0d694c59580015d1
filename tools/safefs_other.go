//go:build unix && !linux

package tools

import (
	"fmt"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// dirOpenFlags opens a directory handle for the *at calls.
const dirOpenFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC

// fdRealPath returns where the directory handle fd is, for systems
// without /proc: the name it was opened by, hint, with its symlinks
// resolved, accepted only when it leads to the handle's device and inode.
// Unlike Linux's, this answer is taken from the name, so a directory
// swapped between the resolution and the comparison and swapped back can
// go unseen; the writes themselves still go through the handle.
func fdRealPath(fd int, hint string) (string, error) {
	p, err := filepath.EvalSymlinks(hint)
	if err != nil {
		return "", fmt.Errorf("%s: %w", hint, errChanged)
	}
	var byFd, byName unix.Stat_t
	if err := unix.Fstat(fd, &byFd); err != nil {
		return "", fmt.Errorf("cannot stat %s: %v", hint, err)
	}
	if err := unix.Stat(p, &byName); err != nil || byFd.Dev != byName.Dev || byFd.Ino != byName.Ino {
		return "", fmt.Errorf("%s: %w", hint, errChanged)
	}
	return filepath.Clean(p), nil
}
