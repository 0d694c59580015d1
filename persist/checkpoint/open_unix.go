//go:build unix

package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// openNoBlock opens without following a final symlink and without
// waiting (a FIFO opens at once instead of waiting for a writer).
const openNoBlock = syscall.O_NOFOLLOW | syscall.O_NONBLOCK

// openDirectory refuses anything but a directory.
const openDirectory = syscall.O_DIRECTORY

// lockPoll is how often a lock wait looks again.
const lockPoll = 20 * time.Millisecond

// lock takes the store's lock file, shared (a checkpoint being taken or
// restored) or exclusive (a prune), waiting until ctx ends; unlock
// releases it. The lock goes with the process: one that dies holds
// nothing.
func (s *Store) lock(ctx context.Context, exclusive bool) (unlock func(), err error) {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(s.dir, "lock"), os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, err
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, err
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("%w: %w", ErrBusy, ctx.Err())
		case <-time.After(lockPoll):
		}
	}
}
