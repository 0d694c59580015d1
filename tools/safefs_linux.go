package tools

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// dirOpenFlags opens a directory handle for the *at calls only: O_PATH
// needs no read permission and cannot read or list it.
const dirOpenFlags = unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC

// fdRealPath returns where the directory handle fd really is, as the
// kernel names it (/proc/self/fd/N), confirmed by comparing the device and
// inode of that name with those of the handle, so that a name that no
// longer leads to the handle is refused rather than trusted. A removed
// directory is refused. hint is only for messages.
func fdRealPath(fd int, hint string) (string, error) {
	p, err := readlinkAt(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(fd))
	if err != nil {
		return "", fmt.Errorf("cannot tell where %s is (/proc/self/fd: %v); is /proc mounted?", hint, err)
	}
	if !filepath.IsAbs(p) || strings.HasSuffix(p, " (deleted)") {
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
