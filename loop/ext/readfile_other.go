//go:build !linux

package ext

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// readFile reads a regular file (a symlink to one is followed) of at most
// MaxFileBytes.
func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("cannot read: %v", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file")
	}
	if fi.Size() > MaxFileBytes {
		return nil, fmt.Errorf("%d bytes is larger than the %d KiB an extension file may have", fi.Size(), MaxFileBytes>>10)
	}
	data := make([]byte, fi.Size())
	n, err := io.ReadFull(f, data)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, fmt.Errorf("cannot read: %v", err)
	}
	return data[:n], nil
}

// readFileAt is readFile of path (the folder is not used here).
func readFileAt(_ *os.File, _, path string) ([]byte, error) { return readFile(path) }
