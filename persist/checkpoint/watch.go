package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
)

// MaxWatches is how many directories a Watcher watches at most (one
// inotify watch each, out of the user's fs.inotify.max_user_watches,
// which other programs share): a tree with more tracked directories is
// checkpointed by walking it, as without a watcher.
const MaxWatches = 8192

// syncTimeout bounds the wait for the watcher to have read every event
// that happened before a checkpoint: past it, the checkpoint walks.
const syncTimeout = 5 * time.Second

// WatchOptions tune a Watcher.
type WatchOptions struct {
	// MaxWatches caps the watched directories (0: MaxWatches).
	MaxWatches int
	// Log gets a line each time the watcher gives up on events (the
	// checkpoints walk from then on) and when its verification fails.
	Log func(line string)
}

// WatchStats counts how a Watcher's checkpoints were taken.
type WatchStats struct {
	// Walks are checkpoints taken by walking the whole tree: the first,
	// the verification, and each after a fallback.
	Walks int
	// Events are checkpoints taken from file events: only what changed
	// was read again.
	Events int
	// Verified is set once an event-driven checkpoint matched a walk of
	// the same tree.
	Verified bool
	// Stopped says why events are no longer used ("" while they are).
	Stopped string
}

// Watcher follows one working tree through file events (inotify on
// Linux), so that a checkpoint reads again only the directories that
// changed since the last one instead of walking the whole tree. It falls
// back to the walk when the events cannot be trusted: the first
// checkpoint (there is nothing to compare with), once per watcher to
// verify the events (a mismatch stops them for good), after an event
// queue overflow, when an ignore rule outside the tree changes, when the
// watches run out (more than MaxWatches directories, or the system's
// limit), on a network or FUSE file system (whose remote changes raise no
// event) and when the watcher cannot start. A checkpoint from events
// holds exactly what a walk would. The zero value is not usable: see
// Store.Watch.
type Watcher struct {
	s          *Store
	root       string
	maxWatches int
	log        func(string)

	// takeMu serialises checkpoints (and the state below it guards).
	takeMu sync.Mutex
	state  *walked // the last checkpoint, nil before the first
	sig    string  // the ignore files outside the tree, as of state
	stats  WatchStats

	mu      sync.Mutex
	fw      *fsnotify.Watcher // nil when not started or stopped
	syncDir string            // where the sync sentinels are written
	loopEnd chan struct{}     // closed when the event loop has ended
	watched map[string]bool   // rel dir → listed (false: opaque)
	dirty   dirtySet
	waiters map[string]chan struct{} // sentinel name → its waiter
	seq     uint64
	stopped string // why events are off for good ("" while on)
	closed  bool
	// newFS starts the fsnotify watcher (tests replace it).
	newFS func() (*fsnotify.Watcher, error)
}

// dirtySet is what the events say changed since the last checkpoint.
type dirtySet struct {
	shallow map[string]bool // directories (rel) whose names are listed again
	deep    map[string]bool // directories (rel) scanned again whole
	full    string          // why the next checkpoint walks ("" if not)
}

func newDirty() dirtySet {
	return dirtySet{shallow: map[string]bool{}, deep: map[string]bool{}}
}

// Watch makes Take(ctx, root) on this store checkpoint root from file
// events from now on (root an absolute directory; one root per store,
// the last call wins). Watching starts with the next checkpoint, so a
// session that never checkpoints never watches. Close stops it.
func (s *Store) Watch(root string, o WatchOptions) *Watcher {
	if o.MaxWatches <= 0 {
		o.MaxWatches = MaxWatches
	}
	if o.Log == nil {
		o.Log = func(string) {}
	}
	w := &Watcher{s: s, root: filepath.Clean(root), maxWatches: o.MaxWatches, log: o.Log, dirty: newDirty(),
		newFS: fsnotify.NewWatcher}
	s.watch.Store(w)
	return w
}

// watching returns the store's watcher of root, if any.
func (s *Store) watching(root string) *Watcher {
	if w := s.watch.Load(); w != nil && w.root == root {
		return w
	}
	return nil
}

// Stats reports how the checkpoints were taken so far.
func (w *Watcher) Stats() WatchStats {
	w.takeMu.Lock()
	st := w.stats
	w.takeMu.Unlock()
	w.mu.Lock()
	st.Stopped = w.stopped
	w.mu.Unlock()
	return st
}

// Close stops watching and waits for the watcher's goroutines to end;
// later checkpoints of its root walk the tree. It is safe to call more
// than once.
func (w *Watcher) Close() error {
	w.s.watch.CompareAndSwap(w, nil)
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	w.stop("closed")
	return nil
}

// stop ends the event loop (if one runs) and records why events are off
// for good; it waits for the loop to end.
func (w *Watcher) stop(why string) {
	w.mu.Lock()
	if w.stopped == "" {
		w.stopped = why
		if why != "closed" {
			w.log("checkpoints: not using file events from now on (" + why + "); each checkpoint walks the tree")
		}
	}
	fw, end, dir := w.fw, w.loopEnd, w.syncDir
	w.fw, w.loopEnd, w.syncDir = nil, nil, ""
	w.watched = nil
	w.mu.Unlock()
	w.shutdown(fw, end, dir)
}

// shutdown closes an fsnotify watcher, waits for its event loop and
// removes its sync directory.
func (w *Watcher) shutdown(fw *fsnotify.Watcher, end chan struct{}, dir string) {
	if fw == nil {
		return
	}
	fw.Close() // its reader goroutine has ended when Close returns
	<-end      // the Events channel is closed: the loop returns
	if dir != "" {
		os.RemoveAll(dir)
	}
}

// start (re)starts the fsnotify watcher with nothing watched yet: the
// full scan that follows adds the directories. It reports whether events
// are on.
func (w *Watcher) start() bool {
	w.mu.Lock()
	if w.stopped != "" || w.closed {
		w.mu.Unlock()
		return false
	}
	old, oldEnd, oldDir := w.fw, w.loopEnd, w.syncDir
	w.fw, w.loopEnd, w.syncDir = nil, nil, ""
	w.mu.Unlock()
	w.shutdown(old, oldEnd, oldDir)

	if why := unwatchable(w.root); why != "" {
		w.stop(why)
		return false
	}
	fw, err := w.newFS()
	if err != nil {
		w.stop(fmt.Sprintf("the file watcher did not start: %v", err))
		return false
	}
	dir, err := os.MkdirTemp("", "talaria-watch-")
	if err == nil {
		if err = fw.Add(dir); err != nil {
			os.RemoveAll(dir)
		}
	}
	if err != nil {
		fw.Close()
		w.stop(fmt.Sprintf("the file watcher did not start: %v", err))
		return false
	}
	end := make(chan struct{})
	w.mu.Lock()
	w.fw, w.loopEnd, w.syncDir = fw, end, dir
	w.watched = map[string]bool{}
	w.dirty = newDirty()
	w.waiters = map[string]chan struct{}{}
	w.mu.Unlock()
	go w.loop(fw, dir, end)
	return true
}

// loop reads fw's events until it is closed.
func (w *Watcher) loop(fw *fsnotify.Watcher, syncDir string, end chan struct{}) {
	defer close(end)
	events, errs := fw.Events, fw.Errors
	for events != nil || errs != nil {
		select {
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			w.note(ev, syncDir)
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			w.mu.Lock()
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.dirty.full = "the file event queue overflowed"
			} else if w.dirty.full == "" {
				w.dirty.full = fmt.Sprintf("the file watcher failed: %v", err)
			}
			// Events were lost (a sentinel's too, maybe): whoever waits
			// for one walks now rather than after the timeout.
			for name, ch := range w.waiters {
				delete(w.waiters, name)
				close(ch)
			}
			w.mu.Unlock()
		}
	}
}

// note records one event: the directory it names a path of is listed
// again at the next checkpoint, a watched directory itself (renamed,
// removed, its mode changed) and a directory whose .gitignore changed are
// scanned again whole.
func (w *Watcher) note(ev fsnotify.Event, syncDir string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if filepath.Dir(ev.Name) == syncDir {
		if ch := w.waiters[filepath.Base(ev.Name)]; ch != nil && ev.Has(fsnotify.Create) {
			delete(w.waiters, filepath.Base(ev.Name))
			close(ch)
		}
		return
	}
	if !within(w.root, ev.Name) {
		return
	}
	rel := relSlash(w.root, ev.Name)
	if rel == "." {
		return // the root itself: not an entry (its removal fails the walk)
	}
	parent, base := path.Dir(rel), path.Base(rel)
	if parent == "." && base == ".git" {
		w.dirty.full = "the project's .git changed" // the ignore rules' git root
		return
	}
	w.dirty.shallow[parent] = true
	if listed, ok := w.watched[parent]; ok && !listed {
		w.dirty.deep[parent] = true // an opaque directory: scan it whole
	}
	if _, ok := w.watched[rel]; ok || base == ".gitignore" {
		if base == ".gitignore" {
			w.dirty.deep[parent] = true
		} else {
			w.dirty.deep[rel] = true
		}
	}
}

// watchDir watches directory abs (rel below the root) unless it already
// is, noting whether its names are listed; running out of watches stops
// events for good.
func (w *Watcher) watchDir(abs string, listed bool) {
	w.mu.Lock()
	fw := w.fw
	if fw == nil {
		w.mu.Unlock()
		return
	}
	rel := relSlash(w.root, abs)
	if _, ok := w.watched[rel]; ok {
		w.watched[rel] = listed
		w.mu.Unlock()
		return
	}
	if len(w.watched) >= w.maxWatches {
		w.mu.Unlock()
		w.stop(fmt.Sprintf("more than %d directories to watch", w.maxWatches))
		return
	}
	w.watched[rel] = listed
	w.mu.Unlock()
	if err := fw.Add(abs); err != nil {
		switch {
		case errors.Is(err, syscall.ENOSPC):
			w.stop("out of inotify watches (fs.inotify.max_user_watches)")
		case errors.Is(err, fsnotify.ErrClosed):
		case errors.Is(err, os.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
			// Gone since it was listed: its parent's event says so.
			w.mu.Lock()
			delete(w.watched, rel)
			w.mu.Unlock()
		default:
			w.stop(fmt.Sprintf("watching %s: %v", rel, err))
		}
	}
}

// unwatch drops the watches of rel and of every watched directory below
// it (a renamed directory's watches would name its old path).
func (w *Watcher) unwatch(rel string) {
	w.mu.Lock()
	fw := w.fw
	var gone []string
	for d := range w.watched {
		if d == rel || rel == "." || strings.HasPrefix(d, rel+"/") {
			gone = append(gone, d)
			delete(w.watched, d)
		}
	}
	w.mu.Unlock()
	if fw == nil {
		return
	}
	for _, d := range gone {
		_ = fw.Remove(filepath.Join(w.root, filepath.FromSlash(d))) // gone already: nothing to drop
	}
}

// sync waits until the event loop has read every event of what happened
// before it was called: it creates a sentinel in the sync directory (the
// kernel queues events in order) and waits for its event. It returns the
// changes noted so far, reset for the next checkpoint; full is set in
// them when events cannot say what changed.
func (w *Watcher) sync(ctx context.Context) dirtySet {
	w.mu.Lock()
	if w.fw == nil {
		w.mu.Unlock()
		return dirtySet{full: "not watching"}
	}
	w.seq++
	name := fmt.Sprintf("sync-%d", w.seq)
	ch := make(chan struct{})
	w.waiters[name] = ch
	p := filepath.Join(w.syncDir, name)
	w.mu.Unlock()
	err := os.WriteFile(p, nil, 0o600)
	if err == nil {
		t := time.NewTimer(syncTimeout)
		select {
		case <-ch:
		case <-ctx.Done():
			err = ctx.Err()
		case <-t.C:
			err = errors.New("no event within " + syncTimeout.String())
		}
		t.Stop()
		os.Remove(p)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.waiters, name)
	d := w.dirty
	w.dirty = newDirty()
	if err != nil && d.full == "" {
		d.full = fmt.Sprintf("the file watcher did not answer: %v", err)
	}
	return d
}

// take is Take for the watched root: a full scan when there is no
// trusted state, else a scan of what the events say changed.
func (w *Watcher) take(ctx context.Context) (*Manifest, error) {
	w.takeMu.Lock()
	defer w.takeMu.Unlock()
	w.mu.Lock()
	on := w.fw != nil
	off := w.stopped != ""
	w.mu.Unlock()
	if off {
		return w.walk(ctx, false)
	}
	if w.state == nil || !on {
		return w.walk(ctx, true)
	}
	d := w.sync(ctx)
	if d.full == "" && ignoreSignature(w.root) != w.sig {
		d.full = "an ignore file outside the tree changed"
	}
	if d.full == "" {
		// The last checkpoint's files are referenced from memory: a prune
		// that removed them (it keeps a live session's) means walking.
		if _, err := os.Stat(filepath.Join(w.s.dir, "manifests", w.state.m.ID)); err != nil {
			d.full = "the last checkpoint is gone from the store"
		}
	}
	if d.full != "" {
		return w.walk(ctx, true)
	}
	next, err := w.s.takeDelta(ctx, w.state, d, w)
	if errors.Is(err, errWalk) {
		return w.walk(ctx, true)
	}
	if err != nil {
		w.state = nil // the next checkpoint starts over
		return nil, err
	}
	w.state = next
	w.stats.Events++
	if !w.stats.Verified {
		return w.verify(ctx, next.m)
	}
	return next.m, nil
}

// verify walks the tree once to check the first event-driven checkpoint
// m: a different result stops events for good. The walk's checkpoint is
// the one returned.
func (w *Watcher) verify(ctx context.Context, m *Manifest) (*Manifest, error) {
	r, err := w.s.take(ctx, w.root, nil)
	if err != nil {
		w.state = nil
		return nil, err
	}
	w.stats.Walks++
	w.stats.Verified = true
	if r.m.ID != m.ID || !slices.Equal(r.m.Entries, m.Entries) {
		w.stop(fmt.Sprintf("an event-driven checkpoint (%s) differed from a walk (%s)", m.ID, r.m.ID))
	}
	w.state = r
	return r.m, nil
}

// walk takes a checkpoint by walking the whole tree; with watch, it
// (re)starts the watcher first and watches every directory the walk
// lists before it lists it.
func (w *Watcher) walk(ctx context.Context, watch bool) (*Manifest, error) {
	var onDir func(string, bool)
	if watch && w.start() {
		onDir = w.watchDir
		w.sig = ignoreSignature(w.root)
	}
	r, err := w.s.take(ctx, w.root, onDir)
	w.stats.Walks++
	if err != nil {
		w.state = nil
		return nil, err
	}
	w.state = r
	if onDir != nil {
		w.markOpaque(r.m)
	}
	return r.m, nil
}

// markOpaque notes which watched directories a scan found unlisted.
func (w *Watcher) markOpaque(m *Manifest) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := range m.Entries {
		e := &m.Entries[i]
		if _, ok := w.watched[e.Path]; ok && e.Type == TypeDir && e.Opaque {
			w.watched[e.Path] = false
		}
	}
}

// ignoreSignature describes the ignore rules a walk of root reads from
// outside it: whether root and the directories above it up to the git
// root hold a .git, their .gitignore files and the git root's
// .git/info/exclude (by stat). A change means walking again.
func ignoreSignature(root string) string {
	var b strings.Builder
	stat := func(p string, full bool) bool {
		info, err := os.Lstat(p)
		if err != nil {
			b.WriteString("-\n")
			return false
		}
		if !full {
			fmt.Fprintf(&b, "%v\n", info.Mode().Type())
			return true
		}
		c := statOf(info)
		fmt.Fprintf(&b, "%v %d %d %d %d\n", info.Mode(), c.Size, c.MTime, c.CTime, c.Ino)
		return true
	}
	for dir := root; ; {
		if dir != root {
			stat(filepath.Join(dir, ".gitignore"), true)
		}
		if stat(filepath.Join(dir, ".git"), false) {
			stat(filepath.Join(dir, ".git", "info", "exclude"), true)
			break
		}
		up := filepath.Dir(dir)
		if up == dir {
			break
		}
		dir = up
	}
	return b.String()
}

// errWalk: the changes cannot be followed piecemeal; walk the tree.
var errWalk = errors.New("walk the whole tree")

// watchers is what a Store keeps of its watcher.
type watchers = atomic.Pointer[Watcher]
