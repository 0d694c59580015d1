//go:build linux

package ext

import (
	"fmt"
	"os"
	"syscall"
)

// readFile reads a regular file (a symlink to one is followed) of at most
// MaxFileBytes. It speaks to the kernel directly, open, fstat, one read,
// close: an *os.File would also register the descriptor with the runtime
// poller and a finalizer, which at start-up, for hundreds of small files,
// is most of the loader's CPU time.
func readFile(path string) ([]byte, error) {
	return readFd(-1, path, path)
}

// readFileAt is readFile of name relative to the open folder dir; path is
// the file's full path, for errors.
func readFileAt(dir *os.File, name, path string) ([]byte, error) {
	return readFd(int(dir.Fd()), name, path)
}

// readFd opens name relative to the folder descriptor at (-1: name is a
// path) and reads it.
func readFd(at int, name, path string) ([]byte, error) {
	var fd int
	var err error
	const flags = syscall.O_RDONLY | syscall.O_CLOEXEC | syscall.O_NONBLOCK
	for {
		if at < 0 {
			fd, err = syscall.Open(name, flags, 0)
		} else {
			fd, err = syscall.Openat(at, name, flags, 0)
		}
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read: %w", &os.PathError{Op: "open", Path: path, Err: err})
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, fmt.Errorf("cannot read: %v", err)
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, fmt.Errorf("not a regular file")
	}
	if st.Size > MaxFileBytes {
		return nil, fmt.Errorf("%d bytes is larger than the %d KiB an extension file may have", st.Size, MaxFileBytes>>10)
	}
	// The size fstat gave (bytes appended meanwhile are not read).
	data := make([]byte, st.Size)
	n := 0
	for n < len(data) {
		m, err := syscall.Read(fd, data[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("cannot read: %v", err)
		}
		if m == 0 {
			break
		}
		n += m
	}
	return data[:n], nil
}
