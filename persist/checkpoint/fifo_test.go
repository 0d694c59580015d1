package checkpoint

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// fifoBound is how long a checkpoint may take here before the test calls
// it hung (it takes milliseconds; the bound only keeps a hang from
// hanging the test run).
const fifoBound = 30 * time.Second

// takeBounded runs Take on its own goroutine and fails the test if it
// has not returned within fifoBound.
func takeBounded(t *testing.T, ctx context.Context, s *Store, root string) (*Manifest, error) {
	t.Helper()
	type result struct {
		m   *Manifest
		err error
	}
	done := make(chan result, 1)
	go func() {
		m, err := s.Take(ctx, root)
		done <- result{m, err}
	}()
	select {
	case r := <-done:
		return r.m, r.err
	case <-time.After(fifoBound):
		// Release a reader blocked on a FIFO below root, so that the
		// goroutine can end with the test.
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.Type()&os.ModeNamedPipe != 0 {
				if f, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					f.Close()
				}
			}
			return nil
		})
		t.Fatalf("Take did not return within %v", fifoBound)
		return nil, nil
	}
}

// TestTakeDoesNotHangOnAFIFOGitignore: a script swapped a directory's
// .gitignore for a FIFO. The walk would wait for a writer forever; the
// checkpoint finishes, with that directory recorded as unread.
func TestTakeDoesNotHangOnAFIFOGitignore(t *testing.T) {
	s, root := setup(t)
	write(t, root, "a.txt", "a", 0o644)
	write(t, root, "sub/b.txt", "b", 0o644)
	if err := syscall.Mkfifo(filepath.Join(root, "sub", ".gitignore"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := takeBounded(t, context.Background(), s, root)
	if err != nil {
		t.Fatal(err)
	}
	idx := m.index()
	if e := idx["sub"]; e == nil || !e.Opaque || idx["a.txt"] == nil {
		t.Fatalf("entries: %+v", m.Entries)
	}
	// The root's own .gitignore is read before anything: refused quickly.
	if err := syscall.Mkfifo(filepath.Join(root, ".gitignore"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := takeBounded(t, context.Background(), s, root); err == nil {
		t.Fatal("a FIFO .gitignore at the root was read")
	}
}

// TestTakeRecordsAFIFOSwappedInForAFile: between the walk's stat and the
// read, a file becomes a FIFO. It is opened without blocking, found not to
// be a regular file by its descriptor, and recorded as a special file.
func TestTakeRecordsAFIFOSwappedInForAFile(t *testing.T) {
	s, root := setup(t)
	write(t, root, "a.txt", "a", 0o644)
	write(t, root, "b.txt", "b", 0o644)
	s.beforeRead = func(abs string) {
		if filepath.Base(abs) == "b.txt" {
			os.Remove(abs)
			if err := syscall.Mkfifo(abs, 0o644); err != nil {
				t.Error(err)
			}
		}
	}
	m, err := takeBounded(t, context.Background(), s, root)
	if err != nil {
		t.Fatal(err)
	}
	idx := m.index()
	if e := idx["b.txt"]; e == nil || e.Type != TypeOther || e.Blob != "" {
		t.Fatalf("b.txt: %+v", e)
	}
	if e := idx["a.txt"]; e == nil || e.Blob == "" {
		t.Fatalf("a.txt: %+v", e)
	}
	// A symlink swapped in is not followed either.
	s.beforeRead = func(abs string) {
		if filepath.Base(abs) == "a.txt" {
			os.Remove(abs)
			os.Symlink("/dev/zero", abs)
		}
	}
	write(t, root, "a.txt", "changed", 0o644)
	if _, err := takeBounded(t, context.Background(), s, root); err != nil {
		t.Fatal(err)
	}
}

// TestCancelledTakeReturns: whatever the scan waits on, cancelling its
// context ends Take (here a read that blocks until the test ends).
func TestCancelledTakeReturns(t *testing.T) {
	s, root := setup(t)
	write(t, root, "a.txt", "a", 0o644)
	release, reading := make(chan struct{}), make(chan struct{})
	defer close(release)
	s.beforeRead = func(string) {
		close(reading)
		<-release
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-reading
		cancel()
	}()
	_, err := takeBounded(t, ctx, s, root)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}
