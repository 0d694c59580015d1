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
	"syscall"
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
func (s *Store) loadCache(root string) statCache { return s.loadCacheFile(s.cachePath(root)) }

// loadCacheFile reads the stat cache at p.
func (s *Store) loadCacheFile(p string) statCache {
	f, err := os.Open(p)
	if err != nil {
		return statCache{}
	}
	defer f.Close()
	var c statCache
	if err := gob.NewDecoder(io.LimitReader(f, maxBlobRead)).Decode(&c); err != nil || c == nil {
		return statCache{}
	}
	return c
}

// saveCache writes root's stat cache.
func (s *Store) saveCache(root string, c statCache) error {
	return s.saveCacheFile(s.cachePath(root), c)
}

// saveCacheFile writes the stat cache at p.
func (s *Store) saveCacheFile(p string, c statCache) error {
	var b strings.Builder
	if err := gob.NewEncoder(&b).Encode(c); err != nil {
		return err
	}
	return writeAtomic(p, []byte(b.String()))
}

// ErrTooLarge is returned (wrapped, with the limit) for a tree too big to
// checkpoint.
var ErrTooLarge = errors.New("the working tree is too large to checkpoint")

// leafEntry is the entry of the non-directory p (rel in the tree, info
// its lstat): a link with its target, a special file by its type, a file
// too big by its size, or a file with its blob when the stat cache holds
// one for that very stat — else hash is set, with st the stat to hash it
// under. ok is false for a link that vanished before it was read. The
// walk and the event-driven scan decide each name here.
func (s *Store) leafEntry(rel, p string, info fs.FileInfo, cache statCache) (e Entry, st cacheEntry, hash, ok bool) {
	e = statEntry(rel, info)
	if e.Type == TypeSymlink {
		target, err := os.Readlink(p)
		if err != nil {
			return Entry{}, cacheEntry{}, false, false
		}
		e.Target = target
	}
	if e.Type != TypeFile {
		return e, cacheEntry{}, false, true
	}
	if info.Size() > s.maxSize {
		e.TooBig = true
		return e, cacheEntry{}, false, true
	}
	st = statOf(info)
	st.Mode = e.Mode
	if c, ok := cache[rel]; ok && c.Blob != "" && c.Size == st.Size && c.MTime == st.MTime &&
		c.CTime == st.CTime && c.Ino == st.Ino && c.Mode == st.Mode {
		e.Blob = c.Blob
		return e, st, false, true
	}
	return e, st, true, true
}

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
// left out; what is not tracked (ignored, special files) is recorded by
// its stat. Nothing is opened in a way that could block (a FIFO swapped
// in for a file is recorded as a special file), and ctx ends the wait:
// a cancelled Take returns at once.
func (s *Store) Take(ctx context.Context, root string) (*Manifest, error) {
	root = filepath.Clean(root)
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("checkpoint: %s is not a directory", root)
	}
	// The ignore files the walk reads before anything else: one that is
	// not a regular file (a FIFO would block the walk) fails the
	// checkpoint rather than hanging it.
	if err := checkIgnoreFiles(root); err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	type result struct {
		m   *Manifest
		err error
	}
	done := make(chan result, 1)
	go func() {
		// The walk reads directories and .gitignore files through the
		// tools package, which a file swapped for a FIFO at the wrong
		// moment could still block: the scan runs on its own goroutine so
		// that ctx ends the wait even then (the scan checks ctx before it
		// saves anything, and keeps the store's lock until it returns).
		if w := s.watching(root); w != nil {
			m, err := w.take(ctx)
			done <- result{m, err}
			return
		}
		r, err := s.take(ctx, root, nil)
		if err != nil {
			done <- result{nil, err}
			return
		}
		done <- result{r.m, nil}
	}()
	select {
	case r := <-done:
		return r.m, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("checkpoint: %w", ctx.Err())
	}
}

// walked is what a full scan found: the checkpoint, the directory
// listings' hashes and the stat cache it left (a watcher carries them on).
type walked struct {
	m     *Manifest
	trees map[string]string
	cache statCache
}

// take is Take's full scan, under the store's shared lock. onDir, when
// set, is called with every directory the scan records (root first),
// with whether it lists its names, before it lists them: a watcher
// watches it there, so that no change made after the listing goes unseen.
func (s *Store) take(ctx context.Context, root string, onDir func(abs string, listed bool)) (*walked, error) {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	unlock, err := s.lock(ctx, false)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	defer unlock()
	start := time.Now()
	old := s.loadCache(root)
	if onDir != nil {
		onDir(root, true)
	}
	m := &Manifest{Root: root, Complete: true}
	var todo []pending
	var newBytes int64
	home := filepath.Dir(s.dir)
	dirs := []string{root} // the directories whose every name is listed
	seen := map[string]bool{}
	add := func(e Entry) error {
		if len(m.Entries) >= s.maxEntries {
			return fmt.Errorf("%w: more than %d files and directories", ErrTooLarge, s.maxEntries)
		}
		seen[e.Path] = true
		m.Entries = append(m.Entries, e)
		return nil
	}
	err = tools.WalkTree(ctx, root, func(p string, d fs.DirEntry) error {
		if within(home, p) {
			return filepath.SkipDir // $TALARIA_HOME: the store, state.db
		}
		info, err := d.Info()
		if err != nil {
			return nil // vanished since the directory was read
		}
		rel := relSlash(root, p)
		if info.IsDir() {
			e := Entry{Path: rel, Type: TypeDir, Mode: uint32(info.Mode().Perm())}
			// The walk reads the directory's .gitignore next: one that
			// would block (not a regular file) leaves the directory
			// unread.
			if !regularOrAbsent(filepath.Join(p, ".gitignore")) {
				e.Opaque = true
				if onDir != nil {
					onDir(p, false)
				}
				if err := add(e); err != nil {
					return err
				}
				return filepath.SkipDir
			}
			if onDir != nil {
				onDir(p, true)
			}
			dirs = append(dirs, p)
			return add(e)
		}
		e, st, hash, ok := s.leafEntry(rel, p, info, old)
		if !ok {
			return nil
		}
		if hash {
			if newBytes += info.Size(); newBytes > s.maxNewBytes {
				return fmt.Errorf("%w: more than %d MiB of new contents", ErrTooLarge, s.maxNewBytes>>20)
			}
			todo = append(todo, pending{idx: len(m.Entries), abs: p, stat: st})
		}
		return add(e)
	})
	if err != nil {
		return nil, fmt.Errorf("checkpoint: walking %s: %w", root, err)
	}
	// Every other name in the listed directories: ignored, or gone
	// unseen. Recorded by stat, so that a rewind knows it was there.
	if err := listIgnored(ctx, m, root, home, dirs, seen, add); err != nil {
		return nil, err
	}
	if err := s.hashAll(ctx, m, todo); err != nil {
		return nil, err
	}
	// Drop what vanished mid-scan (no blob and not too big).
	m.Entries = slices.DeleteFunc(m.Entries, func(e Entry) bool {
		return e.Type == TypeFile && !e.TooBig && !e.Ignored && e.Blob == ""
	})
	sortByPath(m.Entries)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	trees, err := s.saveManifest(m, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: saving the manifest: %w", err)
	}
	// Nothing read and nothing gone: the cache on disk is still right.
	c := newCache(m, old, todo, start)
	if len(todo) > 0 || len(c) != len(old) {
		if err := s.saveCache(root, c); err != nil {
			return nil, fmt.Errorf("checkpoint: saving the stat cache: %w", err)
		}
	}
	return &walked{m: m, trees: trees, cache: c}, nil
}

// statEntry is the entry of a path by its stat alone: a directory, a
// symlink (without its target), a regular file (without its contents) or
// a special file.
func statEntry(rel string, info fs.FileInfo) Entry {
	mode := info.Mode()
	perm := uint32(mode.Perm() | mode&(fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky))
	switch {
	case mode.IsDir():
		return Entry{Path: rel, Type: TypeDir, Mode: uint32(mode.Perm())}
	case mode&fs.ModeSymlink != 0:
		return Entry{Path: rel, Type: TypeSymlink}
	case mode.IsRegular():
		return Entry{Path: rel, Type: TypeFile, Mode: perm, Size: info.Size(), MTime: info.ModTime().UnixNano()}
	}
	return Entry{Path: rel, Type: TypeOther, Mode: uint32(mode & (fs.ModeType | fs.ModePerm)),
		Size: info.Size(), MTime: info.ModTime().UnixNano()}
}

// markOpaque marks the directory entry rel as not listed.
func markOpaque(m *Manifest, rel string) {
	for i := range m.Entries {
		if m.Entries[i].Path == rel && m.Entries[i].Type == TypeDir {
			m.Entries[i].Opaque = true
		}
	}
}

// regularOrAbsent reports whether p (followed, as the walk reads it) is a
// regular file or not there: anything else could block a reader.
func regularOrAbsent(p string) bool {
	st, err := os.Stat(p)
	return err != nil || st.Mode().IsRegular()
}

// checkIgnoreFiles refuses the ignore files the walk reads before it
// lists root (root's .gitignore, those of the directories up to the git
// root, the git root's .git/info/exclude) when one is not a regular file.
func checkIgnoreFiles(root string) error {
	check := []string{filepath.Join(root, ".gitignore")}
	for dir := root; ; {
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			check = append(check, filepath.Join(dir, ".git", "info", "exclude"))
			break
		}
		up := filepath.Dir(dir)
		if up == dir {
			break
		}
		dir = up
		check = append(check, filepath.Join(dir, ".gitignore"))
	}
	for _, p := range check {
		if !regularOrAbsent(p) {
			return fmt.Errorf("%s is not a regular file: the tree is not checkpointed", p)
		}
	}
	return nil
}

// newCache builds the stat cache after a scan: every stored file but those
// modified within racyWindow of the scan's start.
func newCache(m *Manifest, old statCache, todo []pending, start time.Time) statCache {
	c := make(statCache, len(m.Entries))
	cacheStored(c, m.Root, m.Entries, old, todo, start)
	return c
}

// cacheStored puts into c the stat of each stored file of entries (its
// stat from todo when it was just read, else from old) but those modified
// within racyWindow of start: their next change could share the mtime.
func cacheStored(c statCache, root string, entries []Entry, old map[string]cacheEntry, todo []pending, start time.Time) {
	read := make(map[string]cacheEntry, len(todo))
	for _, p := range todo {
		read[relSlash(root, p.abs)] = p.stat
	}
	limit := start.Add(-racyWindow).UnixNano()
	for i := range entries {
		e := &entries[i]
		if e.Type != TypeFile || e.Blob == "" || e.MTime >= limit {
			continue
		}
		st, ok := read[e.Path]
		if !ok {
			st, ok = old[e.Path]
		}
		if ok {
			st.Blob = e.Blob
			c[e.Path] = st
		}
	}
}

// hashAll reads, hashes and stores the pending files on a few workers,
// setting their entries' blobs (a file that cannot be read keeps none, a
// file grown past the limit is marked too big, one that is no longer a
// regular file is recorded as a special file). What a file is is taken
// from the descriptor it was read through, so that the stat cache
// describes what was read.
func (s *Store) hashAll(ctx context.Context, m *Manifest, todo []pending) error {
	if len(todo) == 0 {
		return nil
	}
	workers := min(runtime.GOMAXPROCS(0), len(todo), 8)
	ch := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for range workers {
		wg.Go(func() {
			for i := range ch {
				p := &todo[i]
				if s.beforeRead != nil {
					s.beforeRead(p.abs)
				}
				blob, info, big, err := s.storeFile(p.abs)
				mu.Lock()
				e := &m.Entries[p.idx]
				switch {
				case errors.Is(err, errNotRegular):
					*e = statEntry(e.Path, info)
				case err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrPermission) &&
					!errors.Is(err, syscall.ELOOP):
					if firstErr == nil {
						firstErr = err
					}
				case err != nil:
				case big:
					*e = statEntry(e.Path, info)
					e.TooBig = true
				default:
					*e = statEntry(e.Path, info)
					e.Blob = blob
					st := statOf(info)
					st.Mode = e.Mode
					p.stat = st
				}
				mu.Unlock()
			}
		})
	}
send:
	for i := range todo {
		select {
		case ch <- i:
		case <-ctx.Done():
			break send
		}
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

// errNotRegular: the path is no longer a regular file.
var errNotRegular = errors.New("not a regular file")

// storeFile reads one file, stores its contents and returns their hash
// and the file's stat as read; big is set when the file turned out larger
// than the limit. It opens without following a symlink and without
// blocking (a FIFO is not waited on), and reads only a regular file
// (errNotRegular otherwise, with its stat).
func (s *Store) storeFile(abs string) (blob string, info fs.FileInfo, big bool, err error) {
	f, err := os.OpenFile(abs, os.O_RDONLY|openNoBlock, 0)
	if err != nil {
		return "", nil, false, err
	}
	defer f.Close()
	if info, err = f.Stat(); err != nil {
		return "", nil, false, err
	}
	if !info.Mode().IsRegular() {
		return "", info, false, errNotRegular
	}
	if info.Size() > s.maxSize {
		return "", info, true, nil
	}
	data, err := io.ReadAll(io.LimitReader(f, s.maxSize+1))
	if err != nil {
		return "", nil, false, err
	}
	if int64(len(data)) > s.maxSize {
		return "", info, true, nil
	}
	sum := sha256.Sum256(data)
	h := hex.EncodeToString(sum[:])
	if err := s.putBlob(h, data); err != nil {
		return "", nil, false, fmt.Errorf("storing %s: %w", abs, err)
	}
	return h, info, false, nil
}

// readNames lists a directory's names, opened without following a
// symlink and without blocking.
func readNames(dir string) ([]string, error) {
	f, err := os.OpenFile(dir, os.O_RDONLY|openNoBlock|openDirectory, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}
