package persist

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/debug"
	"syscall"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// closeGrace bounds how long closing a handle may take after a panic inside
// bbolt (its locks should be free by then, but a hang must not spread).
const closeGrace = time.Second

// withDB opens the file, retrying until the deadline while another process
// holds the lock, runs one transaction and closes the file.
func (s *Store) withDB(write bool, fn func(*bolt.Tx) error, deadline time.Time) error {
	backoff := minBackoff
	for {
		if err := s.knownDamage(); err != nil {
			return err
		}
		err := s.attempt(write, fn)
		if !errors.Is(err, berrors.ErrTimeout) {
			return err
		}
		left := time.Until(deadline)
		if left <= 0 {
			return &LockedError{Path: s.path, Waited: s.lockTimeout - left}
		}
		sleep := backoff/2 + rand.N(backoff)
		time.Sleep(min(sleep, left))
		backoff = min(backoff*2, maxBackoff)
	}
}

// attempt is one open + transaction + close. Panics from bbolt (raised on
// corrupt pages) and memory faults on the mapped file become a
// *DamagedError. A lock held elsewhere returns berrors.ErrTimeout for withDB
// to retry.
func (s *Store) attempt(write bool, fn func(*bolt.Tx) error) error {
	prev := debug.SetPanicOnFault(true)
	defer debug.SetPanicOnFault(prev)

	var file *os.File
	db, err := s.openDB(write, &file)
	if err != nil {
		return err
	}
	panicked, err := s.runTx(db, write, fn)
	if panicked {
		s.closeAfterPanic(db, file)
		return err
	}
	if cerr := db.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("close %s: %w", s.path, cerr)
	}
	return err
}

// openDB opens the bbolt file. *file receives the descriptor, so that a
// panic inside bolt.Open can still be accounted for.
func (s *Store) openDB(write bool, file **os.File) (db *bolt.DB, err error) {
	defer func() {
		if r := recover(); r != nil {
			db, err = nil, s.damaged(fmt.Sprintf("reading it failed: %v", r), nil)
			// bbolt has mapped the file and the mapping keeps the lock
			// alive; there is no handle to unmap it. Remember the file so
			// later calls report the damage instead of waiting on the lock.
			if *file != nil {
				s.recordLeak(*file, err)
				_ = (*file).Close()
			}
		}
	}()
	db, err = bolt.Open(s.path, fileMode, &bolt.Options{
		Timeout:  attemptTimeout,
		ReadOnly: !write,
		OpenFile: func(name string, flag int, perm os.FileMode) (*os.File, error) {
			f, err := os.OpenFile(name, flag, perm)
			if err != nil {
				return nil, err
			}
			if err := s.precheck(f); err != nil {
				_ = f.Close()
				return nil, err
			}
			*file = f
			return f, nil
		},
	})
	if err == nil {
		return db, nil
	}
	var damaged *DamagedError
	var pathErr *fs.PathError
	var errno syscall.Errno
	switch {
	case errors.Is(err, berrors.ErrTimeout), errors.As(err, &damaged):
		return nil, err
	case errors.Is(err, berrors.ErrInvalid):
		return nil, s.damaged("not a bbolt database, or both header pages are corrupt", err)
	case errors.Is(err, berrors.ErrChecksum):
		return nil, s.damaged("header checksum mismatch", err)
	case errors.Is(err, berrors.ErrVersionMismatch):
		return nil, s.damaged("unknown bbolt file version", err)
	case errors.As(err, &pathErr), errors.As(err, &errno):
		// The file system's answer (permission, not a file, disk full).
		return nil, fmt.Errorf("open %s at %s: %w", filepath.Base(s.path), s.path, err)
	}
	// bbolt's own complaints about the file ("file size too small", ...).
	return nil, s.damaged(err.Error(), err)
}

// runTx runs fn in one transaction, converting panics into a damage error.
func (s *Store) runTx(db *bolt.DB, write bool, fn func(*bolt.Tx) error) (panicked bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			panicked, err = true, s.damaged(fmt.Sprintf("reading it failed: %v", r), nil)
		}
	}()
	body := func(tx *bolt.Tx) error {
		if write {
			if err := s.ensureSchema(tx); err != nil {
				return err
			}
		} else if ready, err := s.checkSchema(tx); err != nil {
			return err
		} else if !ready {
			return errNotReady{}
		}
		return fn(tx)
	}
	if write {
		err = db.Update(body)
	} else {
		err = db.View(body)
	}
	if err != nil && isBoltCorruption(err) {
		err = s.damaged(err.Error(), err)
	}
	return false, err
}

// closeAfterPanic closes a handle whose transaction panicked. bbolt rolled
// the transaction back on the way out, so Close normally succeeds (and
// unmapping the file releases the lock); if it panics or hangs, the file is
// remembered as damaged.
func (s *Store) closeAfterPanic(db *bolt.DB, file *os.File) {
	done := make(chan bool, 1)
	go func() {
		ok := false
		defer func() {
			_ = recover()
			done <- ok
		}()
		_ = db.Close()
		ok = true
	}()
	select {
	case ok := <-done:
		if ok {
			return
		}
	case <-time.After(closeGrace):
	}
	s.recordLeak(file, s.damaged("its handle could not be closed after a read failure", nil))
	_ = file.Close()
}

// recordLeak remembers that this process still maps file (and so holds its
// lock), so later calls fail fast with err instead of waiting for the lock.
// Moving the file aside clears the condition: a new file is another inode.
func (s *Store) recordLeak(file *os.File, err error) {
	fi, statErr := file.Stat()
	if statErr != nil {
		return
	}
	s.leakMu.Lock()
	defer s.leakMu.Unlock()
	s.leaked, s.leakErr = fi, err
}

// knownDamage returns the recorded error if the file at the path is one
// this process could not release.
func (s *Store) knownDamage() error {
	s.leakMu.Lock()
	leaked, err := s.leaked, s.leakErr
	s.leakMu.Unlock()
	if leaked == nil {
		return nil
	}
	if fi, statErr := os.Stat(s.path); statErr == nil && os.SameFile(fi, leaked) {
		return err
	}
	return nil
}

// The bbolt file header (format version 2): a 16-byte page header, then the
// meta fields. precheck reads it itself, without the lock.
const (
	pageHeaderSize = 16
	metaSize       = 64 // up to and including the checksum
	boltMagic      = 0xED0CDAED
	boltVersion    = 2
)

// precheck catches a truncated file before bbolt maps it: bbolt would fault
// on the first page past the end, possibly inside bolt.Open where the
// mapping cannot be released. The check needs no lock: bbolt never shrinks
// the file and writes pages before the meta that counts them, so a meta's
// high-water page is inside the file whenever the file is intact. A header
// this cannot parse is left for bbolt to judge.
func (s *Store) precheck(f *os.File) error {
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return nil
	}
	best, ok := readMeta(f)
	if !ok || best.pageSize == 0 || best.pageSize > 1<<24 || best.pgid > 1<<40 {
		return nil
	}
	need := uint64(best.pageSize) * best.pgid
	if need > uint64(fi.Size()) {
		return s.damaged(fmt.Sprintf("truncated: the file is %d bytes but its header counts %d", fi.Size(), need), nil)
	}
	const noFreelist = ^uint64(0)
	if best.free != noFreelist && best.free >= best.pgid {
		return s.damaged("its header points past the end of the data", nil)
	}
	return nil
}

// boltMeta is what precheck reads of bbolt's newest valid meta page.
type boltMeta struct {
	pageSize         uint32
	pgid, txid, free uint64
}

// readMeta parses the newer of bbolt's two meta pages. The layout is
// bbolt's private format (version 2), pinned per bbolt release by
// TestPrecheckMetaLayoutMatchesBbolt: upgrading bbolt fails that test
// until the layout is checked again.
func readMeta(f io.ReaderAt) (boltMeta, bool) {
	var best boltMeta
	found := false
	var buf [pageHeaderSize + metaSize]byte
	offset := int64(0)
	for i := range 2 {
		n, _ := f.ReadAt(buf[:], offset)
		m := buf[pageHeaderSize:]
		h := fnv.New64a()
		h.Write(m[:56])
		valid := n == len(buf) &&
			binary.LittleEndian.Uint32(m[0:]) == boltMagic &&
			binary.LittleEndian.Uint32(m[4:]) == boltVersion &&
			binary.LittleEndian.Uint64(m[56:]) == h.Sum64()
		if valid {
			txid := binary.LittleEndian.Uint64(m[48:])
			if !found || txid > best.txid {
				found, best.txid = true, txid
				best.pageSize = binary.LittleEndian.Uint32(m[8:])
				best.free = binary.LittleEndian.Uint64(m[32:])
				best.pgid = binary.LittleEndian.Uint64(m[40:])
			}
		}
		// The second header is one page in: the first says how big a page
		// is; without it, guess the OS page size as bbolt does.
		if i == 0 && valid {
			offset = int64(binary.LittleEndian.Uint32(m[8:]))
		} else if i == 0 {
			offset = int64(os.Getpagesize())
		}
	}
	return best, found
}
