package checkpoint

import (
	"context"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"talaria/tools"
)

// racyWindow: a file modified this close before a scan began is not
// trusted from the stat cache next time (its mtime may not change again
// within the file system's timestamp granularity), as git's "racy" rule.
const racyWindow = time.Second

// cacheEntry is what the stat cache remembers of one file.
type cacheEntry struct {
	Size  int64
	MTime int64
	CTime int64
	Ino   uint64
	Mode  uint32
	Blob  string
}

// statCache is a project's cache: relative path → entry.
type statCache map[string]cacheEntry

// cachePath is where root's stat cache lives.
func (s *Store) cachePath(root string) string {
	return filepath.Join(s.dir, "cache", projectKey(root))
}

// loadCache reads root's stat cache; a missing or unreadable cache is
// empty (it only saves work).
func (s *Store) loadCache(root string) statCache {
	f, err := os.Open(s.cachePath(root))
	if err != nil {
		return statCache{}
	}
	defer f.Close()
	var c statCache
	if err := gob.NewDecoder(f).Decode(&c); err != nil || c == nil {
		return statCache{}
	}
	return c
}

// saveCache writes root's stat cache.
func (s *Store) saveCache(root string, c statCache) error {
	var b strings.Builder
	if err := gob.NewEncoder(&b).Encode(c); err != nil {
		return err
	}
	return writeAtomic(s.cachePath(root), []byte(b.String()))
}

// ErrTooLarge is returned (wrapped, with the limit) for a tree too big to
// checkpoint.
var ErrTooLarge = errors.New("the working tree is too large to checkpoint")

// pending is a file the scan must read.
type pending struct {
	idx  int    // index in the manifest's entries
	abs  string // absolute path
	stat cacheEntry
}

// Take records the tree below root (an absolute directory) and returns
// its checkpoint. Unchanged files (same size, mtime, ctime, inode and mode
// as the stat cache remembers) are not read again; new contents are
// stored once. Entries that vanish or cannot be read during the scan are
// left out. ctx bounds the walk.
func (s *Store) Take(ctx context.Context, root string) (*Manifest, error) {
	root = filepath.Clean(root)
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("checkpoint: %s is not a directory", root)
	}
	start := time.Now()
	old := s.loadCache(root)
	m := &Manifest{Root: root}
	var todo []pending
	var newBytes int64
	err := tools.WalkTree(ctx, root, func(p string, d fs.DirEntry) error {
		if within(filepath.Dir(s.dir), p) {
			return filepath.SkipDir // $TALARIA_HOME: the store, state.db
		}
		if len(m.Entries) >= s.maxEntries {
			return fmt.Errorf("%w: more than %d files and directories", ErrTooLarge, s.maxEntries)
		}
		info, err := d.Info()
		if err != nil {
			return nil // vanished since the directory was read
		}
		rel := relSlash(root, p)
		mode := uint32(info.Mode().Perm() | info.Mode()&(fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky))
		switch {
		case info.IsDir():
			m.Entries = append(m.Entries, Entry{Path: rel, Type: TypeDir, Mode: uint32(info.Mode().Perm())})
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return nil
			}
			m.Entries = append(m.Entries, Entry{Path: rel, Type: TypeSymlink, Target: target})
		case info.Mode().IsRegular():
			e := Entry{Path: rel, Type: TypeFile, Mode: mode, Size: info.Size(), MTime: info.ModTime().UnixNano()}
			if info.Size() > s.maxSize {
				e.TooBig = true
				m.Entries = append(m.Entries, e)
				return nil
			}
			st := statOf(info)
			st.Mode = mode
			if c, ok := old[rel]; ok && c.Blob != "" && c.Size == st.Size && c.MTime == st.MTime &&
				c.CTime == st.CTime && c.Ino == st.Ino && c.Mode == st.Mode {
				e.Blob = c.Blob
			} else {
				if newBytes += info.Size(); newBytes > s.maxNewBytes {
					return fmt.Errorf("%w: more than %d MiB of new contents", ErrTooLarge, s.maxNewBytes>>20)
				}
				todo = append(todo, pending{idx: len(m.Entries), abs: p, stat: st})
			}
			m.Entries = append(m.Entries, e)
		}
		return nil // sockets, devices, fifos: not tracked
	})
	if err != nil {
		return nil, fmt.Errorf("checkpoint: walking %s: %w", root, err)
	}
	if err := s.hashAll(ctx, m, todo); err != nil {
		return nil, err
	}
	// Drop what vanished mid-scan (no blob and not too big).
	m.Entries = slices.DeleteFunc(m.Entries, func(e Entry) bool { return e.Type == TypeFile && !e.TooBig && e.Blob == "" })
	sortByPath(m.Entries)
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	if err := s.saveManifest(m); err != nil {
		return nil, fmt.Errorf("checkpoint: saving the manifest: %w", err)
	}
	// Nothing read and nothing gone: the cache on disk is still right.
	if c := newCache(m, old, todo, start); len(todo) > 0 || len(c) != len(old) {
		if err := s.saveCache(root, c); err != nil {
			return nil, fmt.Errorf("checkpoint: saving the stat cache: %w", err)
		}
	}
	return m, nil
}

// newCache builds the stat cache after a scan: every stored file but those
// modified within racyWindow of the scan's start.
func newCache(m *Manifest, old statCache, todo []pending, start time.Time) statCache {
	byPath := make(map[string]cacheEntry, len(todo))
	for _, p := range todo {
		byPath[relSlash(m.Root, p.abs)] = p.stat
	}
	limit := start.Add(-racyWindow).UnixNano()
	c := make(statCache, len(m.Entries))
	for i := range m.Entries {
		e := &m.Entries[i]
		if e.Type != TypeFile || e.Blob == "" || e.MTime >= limit {
			continue
		}
		st, ok := byPath[e.Path]
		if !ok {
			st, ok = old[e.Path]
		}
		if ok {
			st.Blob = e.Blob
			c[e.Path] = st
		}
	}
	return c
}

// hashAll reads, hashes and stores the pending files on a few workers,
// setting their entries' blobs (a file that cannot be read keeps none, a
// file grown past the limit is marked too big).
func (s *Store) hashAll(ctx context.Context, m *Manifest, todo []pending) error {
	if len(todo) == 0 {
		return nil
	}
	workers := min(runtime.GOMAXPROCS(0), len(todo), 8)
	ch := make(chan pending)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for range workers {
		wg.Go(func() {
			for p := range ch {
				blob, big, err := s.storeFile(p.abs)
				mu.Lock()
				switch {
				case err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrPermission):
					if firstErr == nil {
						firstErr = err
					}
				case big:
					m.Entries[p.idx].TooBig = true
				default:
					m.Entries[p.idx].Blob = blob
				}
				mu.Unlock()
			}
		})
	}
	for _, p := range todo {
		if ctx.Err() != nil {
			break
		}
		ch <- p
	}
	close(ch)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if firstErr != nil {
		return fmt.Errorf("checkpoint: %w", firstErr)
	}
	return nil
}

// storeFile reads one file, stores its contents and returns their hash;
// big is set when the file turned out larger than the limit.
func (s *Store) storeFile(abs string) (blob string, big bool, err error) {
	f, err := os.Open(abs)
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, s.maxSize+1))
	if err != nil {
		return "", false, err
	}
	if int64(len(data)) > s.maxSize {
		return "", true, nil
	}
	sum := sha256.Sum256(data)
	h := hex.EncodeToString(sum[:])
	if err := s.putBlob(h, data); err != nil {
		return "", false, fmt.Errorf("storing %s: %w", abs, err)
	}
	return h, false, nil
}
