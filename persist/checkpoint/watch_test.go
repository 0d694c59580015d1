package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/fsnotify/fsnotify"
)

// watched opens a store watching root and closes the watcher with the
// test.
func watched(t *testing.T, root string, o WatchOptions) (*Store, *Watcher) {
	t.Helper()
	s := Open(t.TempDir())
	w := s.Watch(root, o)
	t.Cleanup(func() { w.Close() })
	return s, w
}

// sameAsWalk takes a checkpoint through s (watching root) and one by a
// walk in a store of its own, and fails unless they are the same.
func sameAsWalk(t *testing.T, s *Store, root, what string) *Manifest {
	t.Helper()
	ctx := context.Background()
	got, err := s.Take(ctx, root)
	if err != nil {
		t.Fatalf("%s: watched checkpoint: %v", what, err)
	}
	want, err := Open(t.TempDir()).Take(ctx, root)
	if err != nil {
		t.Fatalf("%s: walked checkpoint: %v", what, err)
	}
	if got.ID != want.ID || !reflect.DeepEqual(got.Entries, want.Entries) {
		t.Fatalf("%s: the watched checkpoint differs from a walk:\n%s", what, entryDiff(got.Entries, want.Entries))
	}
	// What is stored is the same too.
	loaded, err := s.Load(got.ID)
	if err != nil {
		t.Fatalf("%s: load %s: %v", what, got.ID, err)
	}
	if !reflect.DeepEqual(loaded.Entries, want.Entries) {
		t.Fatalf("%s: the stored checkpoint differs from a walk:\n%s", what, entryDiff(loaded.Entries, want.Entries))
	}
	return got
}

// entryDiff lists what differs between two entry lists.
func entryDiff(got, want []Entry) string {
	g, w := map[string]Entry{}, map[string]Entry{}
	for _, e := range got {
		g[e.Path] = e
	}
	for _, e := range want {
		w[e.Path] = e
	}
	var out []string
	for p, e := range g {
		if o, ok := w[p]; !ok {
			out = append(out, fmt.Sprintf("  extra   %+v", e))
		} else if !reflect.DeepEqual(e, o) {
			out = append(out, fmt.Sprintf("  differs %+v\n     walk %+v", e, o))
		}
	}
	for p, e := range w {
		if _, ok := g[p]; !ok {
			out = append(out, fmt.Sprintf("  missing %+v", e))
		}
	}
	slices.Sort(out)
	return strings.Join(out, "\n")
}

// fsModel applies random file operations to a tree.
type fsModel struct {
	t    *testing.T
	root string
	r    *rand.Rand
	n    int
	log  []string
}

// paths lists what is under the root now (relative), dirs or not.
func (f *fsModel) paths(dirs bool) []string {
	var out []string
	filepath.WalkDir(f.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == f.root {
			return nil
		}
		if d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.IsDir() == dirs {
			rel, _ := filepath.Rel(f.root, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

func (f *fsModel) pick(list []string) string {
	if len(list) == 0 {
		return ""
	}
	return list[f.r.IntN(len(list))]
}

// dir is a random existing directory ("" the root).
func (f *fsModel) dir() string {
	if f.r.IntN(3) == 0 {
		return ""
	}
	return f.pick(f.paths(true))
}

// name is a new name: some are ignored by the tree's .gitignore rules.
func (f *fsModel) name() string {
	f.n++
	switch f.r.IntN(8) {
	case 0:
		return fmt.Sprintf("n%d.log", f.n) // ignored by *.log
	case 1:
		return "build" // an ignored directory name
	case 2:
		return ".hidden" + fmt.Sprint(f.n)
	}
	return fmt.Sprintf("n%d", f.n)
}

func (f *fsModel) abs(rel string) string { return filepath.Join(f.root, rel) }

// op applies one random operation; failures (a name already taken, a
// directory renamed into itself) are part of the game and ignored.
func (f *fsModel) op() {
	var desc string
	switch k := f.r.IntN(12); k {
	case 0, 1: // create
		p := filepath.Join(f.dir(), f.name())
		os.WriteFile(f.abs(p), []byte(fmt.Sprint("new ", f.n)), 0o644)
		desc = "create " + p
	case 2, 3: // write
		p := f.pick(f.paths(false))
		if p == "" {
			return
		}
		os.WriteFile(f.abs(p), []byte(strings.Repeat("w", f.r.IntN(40))), 0o644)
		desc = "write " + p
	case 4: // remove
		p := f.pick(f.paths(false))
		os.Remove(f.abs(p))
		desc = "remove " + p
	case 5: // rename (files and directories, across directories)
		from := f.pick(append(f.paths(false), f.paths(true)...))
		if from == "" {
			return
		}
		to := filepath.Join(f.dir(), f.name())
		os.Rename(f.abs(from), f.abs(to))
		desc = "rename " + from + " " + to
	case 6: // mkdir, with contents at once (a new directory's files)
		p := filepath.Join(f.dir(), f.name())
		os.Mkdir(f.abs(p), 0o755)
		for i := range f.r.IntN(3) {
			os.WriteFile(f.abs(filepath.Join(p, fmt.Sprint("f", i))), []byte("in a new dir"), 0o644)
		}
		if f.r.IntN(2) == 0 {
			os.MkdirAll(f.abs(filepath.Join(p, "sub", "deeper")), 0o755)
			os.WriteFile(f.abs(filepath.Join(p, "sub", "deeper", "x")), []byte("deep"), 0o644)
		}
		desc = "mkdir " + p
	case 7: // rmdir (with what is in it)
		p := f.pick(f.paths(true))
		if p == "" {
			return
		}
		os.RemoveAll(f.abs(p))
		desc = "rmdir " + p
	case 8: // symlink
		p := filepath.Join(f.dir(), f.name())
		os.Symlink(f.pick(append(f.paths(false), "nowhere")), f.abs(p))
		desc = "symlink " + p
	case 9: // chmod, files and directories
		p := f.pick(append(f.paths(false), f.paths(true)...))
		if p == "" {
			return
		}
		modes := []fs.FileMode{0o600, 0o644, 0o755, 0o700, 0o555}
		os.Chmod(f.abs(p), modes[f.r.IntN(len(modes))])
		desc = "chmod " + p
	case 10: // a .gitignore appears, changes or goes
		p := filepath.Join(f.dir(), ".gitignore")
		rules := []string{"*.log", "build/", "!keep.log", "n1*", "sub/", ""}
		if f.r.IntN(4) == 0 {
			os.Remove(f.abs(p))
		} else {
			os.WriteFile(f.abs(p), []byte(f.pick(rules)+"\n"+f.pick(rules)+"\n"), 0o644)
		}
		desc = "gitignore " + p
	case 11: // rename over an existing file
		list := f.paths(false)
		a, b := f.pick(list), f.pick(list)
		if a == "" || a == b {
			return
		}
		os.Rename(f.abs(a), f.abs(b))
		desc = "rename-over " + a + " " + b
	}
	f.log = append(f.log, desc)
}

// TestWatchedCheckpointIsTheWalk: after random sequences of file
// operations (create, write, remove, rename, mkdir, rmdir, symlink, chmod,
// .gitignore edits), the checkpoint taken from file events is the one a
// walk takes, entry for entry and by id, and it was taken from events
// (the watcher neither stopped nor walked). Deterministic: each
// checkpoint first waits for the watcher to have read every event that
// came before it (a sentinel file's event), and the seeds are fixed.
func TestWatchedCheckpointIsTheWalk(t *testing.T) {
	seeds := 12
	if testing.Short() {
		seeds = 4
	}
	for seed := range seeds {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			root := t.TempDir()
			f := &fsModel{t: t, root: root, r: rand.New(rand.NewPCG(uint64(seed), 31))}
			write(t, root, ".gitignore", "*.log\nbuild/\n", 0o644)
			for i := range 6 {
				write(t, root, fmt.Sprintf("d%d/f%d.go", i%3, i), "package x\n", 0o644)
			}
			s, w := watched(t, root, WatchOptions{})
			sameAsWalk(t, s, root, "the first checkpoint")
			for round := range 10 {
				f.log = f.log[:0]
				for range 1 + f.r.IntN(6) {
					f.op()
				}
				before := w.Stats().Events
				sameAsWalk(t, s, root, fmt.Sprintf("round %d after %q", round, f.log))
				// Only a change of the root's .gitignore (all rules)
				// means walking.
				if w.Stats().Events != before+1 && !touchesRootIgnore(f.log) {
					t.Fatalf("round %d (%q) not taken from events: %+v", round, f.log, w.Stats())
				}
			}
			if st := w.Stats(); st.Stopped != "" || !st.Verified {
				t.Fatalf("stats %+v", st)
			}
		})
	}
}

// touchesRootIgnore reports whether an operation of log named the root's
// .gitignore.
func touchesRootIgnore(log []string) bool {
	for _, l := range log {
		if slices.Contains(strings.Fields(l), ".gitignore") {
			return true
		}
	}
	return false
}

// TestWatchedCheckpointUnchanged: with nothing changed the watcher gives
// the last checkpoint again without reading anything.
func TestWatchedCheckpointUnchanged(t *testing.T) {
	root := t.TempDir()
	write(t, root, "a/b.txt", "b", 0o644)
	s, w := watched(t, root, WatchOptions{})
	first := sameAsWalk(t, s, root, "first")
	write(t, root, "a/c.txt", "c", 0o644)
	sameAsWalk(t, s, root, "verified")
	os.Remove(filepath.Join(root, "a", "c.txt"))
	var read []string
	s.beforeRead = func(abs string) { read = append(read, abs) }
	if again := sameAsWalk(t, s, root, "back as it was"); again.ID != first.ID {
		t.Fatalf("id %s, want the first checkpoint's %s", again.ID, first.ID)
	}
	if st := w.Stats(); st.Events != 2 || st.Stopped != "" {
		t.Fatalf("stats %+v", st)
	}
	m, _ := s.Take(context.Background(), root)
	if m.ID != first.ID || w.Stats().Events != 3 {
		t.Fatalf("unchanged: %s %+v", m.ID, w.Stats())
	}
	if len(read) > 1 { // b.txt's directory is listed again, b.txt is not read
		t.Fatalf("read %q", read)
	}
}

// TestWatchNewDirectoryContents: a directory created (with files and
// directories in it, before any event of them could be watched) is
// watched and scanned whole, and later changes in it are seen.
func TestWatchNewDirectoryContents(t *testing.T) {
	root := t.TempDir()
	write(t, root, "keep.txt", "k", 0o644)
	s, w := watched(t, root, WatchOptions{})
	sameAsWalk(t, s, root, "first")
	write(t, root, "x.txt", "x", 0o644)
	sameAsWalk(t, s, root, "verified")
	write(t, root, "new/a/b/c.txt", "c", 0o644)
	write(t, root, "new/a/d.txt", "d", 0o644)
	sameAsWalk(t, s, root, "a new tree")
	write(t, root, "new/a/b/c.txt", "changed", 0o600)
	os.Symlink("c.txt", filepath.Join(root, "new/a/b/l"))
	sameAsWalk(t, s, root, "changes in the new tree")
	os.Rename(filepath.Join(root, "new/a"), filepath.Join(root, "moved"))
	write(t, root, "moved/b/c.txt", "after the move", 0o644)
	sameAsWalk(t, s, root, "a renamed directory")
	write(t, root, "moved/b/e.txt", "e", 0o644)
	sameAsWalk(t, s, root, "in the renamed directory, watched under its new name")
	if st := w.Stats(); st.Stopped != "" || st.Events != 5 {
		t.Fatalf("stats %+v", st)
	}
}

// TestWatchCapFallsBack: a tree with more directories than the cap is
// checkpointed by walking, the same checkpoints.
func TestWatchCapFallsBack(t *testing.T) {
	root := t.TempDir()
	for i := range 5 {
		write(t, root, fmt.Sprintf("d%d/f", i), "f", 0o644)
	}
	var logged []string
	s, w := watched(t, root, WatchOptions{MaxWatches: 3, Log: func(l string) { logged = append(logged, l) }})
	sameAsWalk(t, s, root, "first")
	write(t, root, "d1/g", "g", 0o644)
	sameAsWalk(t, s, root, "after a change")
	st := w.Stats()
	if !strings.Contains(st.Stopped, "more than 3 directories") || st.Events != 0 || st.Walks != 2 {
		t.Fatalf("stats %+v", st)
	}
	if len(logged) != 1 || !strings.Contains(logged[0], "walks the tree") {
		t.Fatalf("logged %q", logged)
	}
}

// TestWatchStartFailureFallsBack: a watcher that cannot start (no inotify
// instance left) means walking.
func TestWatchStartFailureFallsBack(t *testing.T) {
	root := t.TempDir()
	write(t, root, "a", "a", 0o644)
	s, w := watched(t, root, WatchOptions{})
	w.newFS = func() (*fsnotify.Watcher, error) { return nil, errors.New("too many open files") }
	sameAsWalk(t, s, root, "first")
	write(t, root, "b", "b", 0o644)
	sameAsWalk(t, s, root, "second")
	if st := w.Stats(); !strings.Contains(st.Stopped, "did not start: too many open files") || st.Walks != 2 {
		t.Fatalf("stats %+v", st)
	}
}

// TestWatchOverflowWalks: when the event queue overflows (the event loop
// held up while more events than the kernel queues happen), the next
// checkpoint walks, and events are used again after it.
func TestWatchOverflowWalks(t *testing.T) {
	raw, err := os.ReadFile("/proc/sys/fs/inotify/max_queued_events")
	if err != nil {
		t.Skip("no inotify queue limit to overflow:", err)
	}
	var limit int
	fmt.Sscan(string(raw), &limit)
	if limit <= 0 || limit > 1<<17 {
		t.Skipf("queue limit %d", limit)
	}
	root := t.TempDir()
	write(t, root, "a", "a", 0o644)
	write(t, root, "b", "b", 0o644)
	s, w := watched(t, root, WatchOptions{})
	sameAsWalk(t, s, root, "first")
	write(t, root, "c", "c", 0o644)
	sameAsWalk(t, s, root, "verified")
	// The loop blocks on w.mu; fsnotify's reader fills its buffer (4096
	// events) and stops reading; the kernel's queue then overflows.
	w.mu.Lock()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	for i := range limit + 4096 + 1000 {
		p := a
		if i%2 == 1 {
			p = b // alternating, so that the kernel merges none
		}
		if err := os.Chmod(p, fs.FileMode(0o600+(i/2%2)*0o44)); err != nil {
			w.mu.Unlock()
			t.Fatal(err)
		}
	}
	w.mu.Unlock()
	write(t, root, "d", "after the overflow", 0o644)
	sameAsWalk(t, s, root, "after the overflow")
	if st := w.Stats(); st.Walks != 3 || st.Events != 1 || st.Stopped != "" {
		t.Fatalf("after the overflow: %+v", st)
	}
	write(t, root, "e", "e", 0o644)
	sameAsWalk(t, s, root, "events again")
	if st := w.Stats(); st.Events != 2 {
		t.Fatalf("events not used again: %+v", st)
	}
}

// TestWatchIgnoreOutsideTreeWalks: a .gitignore above the root (in the
// git repository the root is in) is no event in the tree: its change is
// noticed and the checkpoint walks.
func TestWatchIgnoreOutsideTreeWalks(t *testing.T) {
	repo := t.TempDir()
	os.Mkdir(filepath.Join(repo, ".git"), 0o755)
	root := filepath.Join(repo, "sub")
	write(t, root, "a.tmp", "a", 0o644)
	write(t, root, "b.go", "b", 0o644)
	s, w := watched(t, root, WatchOptions{})
	sameAsWalk(t, s, root, "first")
	write(t, root, "c.go", "c", 0o644)
	sameAsWalk(t, s, root, "verified")
	write(t, repo, ".gitignore", "*.tmp\n", 0o644)
	m := sameAsWalk(t, s, root, "after the parent's .gitignore changed")
	for _, e := range m.Entries {
		if e.Path == "a.tmp" && !e.Ignored {
			t.Fatalf("a.tmp not ignored: %+v", e)
		}
	}
	write(t, repo, ".git/info/exclude", "*.go\n", 0o644)
	sameAsWalk(t, s, root, "after info/exclude changed")
	if st := w.Stats(); st.Walks != 4 || st.Stopped != "" {
		t.Fatalf("stats %+v", st)
	}
}

// TestWatchVerifyMismatchStops: when the first event-driven checkpoint
// differs from the verifying walk (here: a change the watcher's memory
// lost), events are off for good and the walk's checkpoint is the one
// given.
func TestWatchVerifyMismatchStops(t *testing.T) {
	root := t.TempDir()
	write(t, root, "a/x", "x", 0o644)
	write(t, root, "b/y", "y", 0o644)
	var logged []string
	s, w := watched(t, root, WatchOptions{Log: func(l string) { logged = append(logged, l) }})
	sameAsWalk(t, s, root, "first")
	w.takeMu.Lock()
	w.state.m.Entries = slices.DeleteFunc(w.state.m.Entries, func(e Entry) bool { return e.Path == "b/y" })
	w.takeMu.Unlock()
	write(t, root, "a/z", "z", 0o644)
	sameAsWalk(t, s, root, "the verification")
	if st := w.Stats(); !strings.Contains(st.Stopped, "differed from a walk") {
		t.Fatalf("stats %+v", st)
	}
	if len(logged) != 1 {
		t.Fatalf("logged %q", logged)
	}
}

// TestWatchCloseStopsGoroutines: Close ends every goroutine the watcher
// started (its event loop and fsnotify's reader) before it returns, and
// removes its sync directory; checkpoints walk after it.
func TestWatchCloseStopsGoroutines(t *testing.T) {
	root := t.TempDir()
	write(t, root, "a", "a", 0o644)
	s := Open(t.TempDir())
	w := s.Watch(root, WatchOptions{})
	defer w.Close()
	if _, err := s.Take(context.Background(), root); err != nil {
		t.Fatal(err)
	}
	w.mu.Lock()
	dir, on := w.syncDir, w.fw != nil
	w.mu.Unlock()
	if !on {
		t.Fatalf("not watching: %+v", w.Stats())
	}
	w.Close()
	if st := stacks(); strings.Contains(st, "(*Watcher).loop") || strings.Contains(st, "fsnotify") {
		t.Fatalf("goroutines left after Close:\n%s", st)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("sync directory %s left: %v", dir, err)
	}
	if s.watching(root) != nil {
		t.Fatal("the store still uses the closed watcher")
	}
	w.Close()
}

// stacks is every goroutine's stack.
func stacks() string {
	for n := 1 << 20; ; n *= 2 {
		buf := make([]byte, n)
		if k := runtime.Stack(buf, true); k < n {
			return string(buf[:k])
		}
	}
}
