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
	"strings"
	"syscall"
	"testing"
	"time"
)

// node is what a test compares of one path.
type node struct {
	Mode fs.FileMode
	Data string
}

// treeOf reads every path under root (hidden included, .git excluded) as
// the test sees it, without the package's help.
func treeOf(t *testing.T, root string) map[string]node {
	t.Helper()
	out := map[string]node{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == root {
			return nil
		}
		if d.Name() == ".git" {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(root, p)
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		n := node{Mode: info.Mode()}
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			n.Data, _ = os.Readlink(p)
		case info.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			n.Data = string(b)
		}
		out[filepath.ToSlash(rel)] = n
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func write(t *testing.T, root, rel, data string, mode fs.FileMode) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

func setup(t *testing.T) (*Store, string) {
	t.Helper()
	return Open(t.TempDir()), t.TempDir()
}

func take(t *testing.T, s *Store, root string) *Manifest {
	t.Helper()
	m, err := s.Take(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestRestoreUndoesCreateModifyDeleteChmodSymlink(t *testing.T) {
	s, root := setup(t)
	write(t, root, "a.txt", "alpha\n", 0o644)
	write(t, root, "dir/b.txt", "beta\n", 0o644)
	write(t, root, "run.sh", "#!/bin/sh\n", 0o644)
	write(t, root, "keep/empty/.placeholder", "", 0o644)
	if err := os.Symlink("a.txt", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "emptydir"), 0o750); err != nil {
		t.Fatal(err)
	}
	before := treeOf(t, root)
	target := take(t, s, root)

	// What a turn does.
	write(t, root, "a.txt", "alpha changed\n", 0o644)
	os.Remove(filepath.Join(root, "dir/b.txt"))
	os.Remove(filepath.Join(root, "dir"))
	os.Chmod(filepath.Join(root, "run.sh"), 0o755)
	write(t, root, "new/deep/c.txt", "created\n", 0o600)
	os.Remove(filepath.Join(root, "link"))
	os.Symlink("run.sh", filepath.Join(root, "link"))
	os.Remove(filepath.Join(root, "emptydir"))
	latest := take(t, s, root)

	got := Changes(target, latest)
	want := []Change{{"a.txt", Changed}, {"dir/b.txt", Deleted}, {"link", Changed}, {"new/deep/c.txt", Created}, {"run.sh", Changed}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("changes:\n got %v\nwant %v", got, want)
	}
	rep, err := s.Restore(context.Background(), target, latest, false)
	if err != nil || !rep.OK() {
		t.Fatalf("restore: %v %+v", err, rep)
	}
	if after := treeOf(t, root); !reflect.DeepEqual(before, after) {
		t.Fatalf("tree differs after restore:\nbefore %v\nafter  %v", before, after)
	}
	if _, err := os.Stat(filepath.Join(root, "new")); !os.IsNotExist(err) {
		t.Fatal("directory left empty by the removal is still there")
	}
}

func TestRestoreRefusesOutsideChangeUnlessForced(t *testing.T) {
	s, root := setup(t)
	write(t, root, "f.txt", "one\n", 0o644)
	write(t, root, "g.txt", "g\n", 0o644)
	target := take(t, s, root)
	write(t, root, "f.txt", "two\n", 0o644)
	write(t, root, "g.txt", "g2\n", 0o644)
	latest := take(t, s, root)
	write(t, root, "f.txt", "edited by hand\n", 0o644)

	rep, err := s.Restore(context.Background(), target, latest, false)
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK() || len(rep.Refused) != 1 || rep.Refused[0].Path != "f.txt" {
		t.Fatalf("want f.txt refused, got %+v", rep)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "f.txt")); string(b) != "edited by hand\n" {
		t.Fatalf("refused file was overwritten: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "g.txt")); string(b) != "g\n" {
		t.Fatalf("g.txt not restored: %q", b)
	}
	// The hand edit is kept in the checkpoint taken before the restore.
	saved, err := s.Load(rep.Saved)
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := s.Diff(target, saved); !strings.Contains(d, "+edited by hand") {
		t.Fatalf("saved checkpoint lacks the hand edit:\n%s", d)
	}
	rep, err = s.Restore(context.Background(), target, latest, true)
	if err != nil || !rep.OK() {
		t.Fatalf("forced restore: %v %+v", err, rep)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "f.txt")); string(b) != "one\n" {
		t.Fatalf("forced restore left %q", b)
	}
}

func TestIgnoredAndTooBigAreNotTracked(t *testing.T) {
	s, root := setup(t)
	s.maxSize = 1 << 10 // the limit scaled down; MaxFileSize is checked below
	write(t, root, ".gitignore", "build/\n*.log\n", 0o644)
	write(t, root, "build/out.bin", "old build", 0o644)
	write(t, root, "x.log", "log", 0o644)
	write(t, root, "big.dat", strings.Repeat("x", 2<<10), 0o644)
	target := take(t, s, root)
	for _, e := range target.Entries {
		if strings.HasPrefix(e.Path, "build/") || ((e.Path == "build" || e.Path == "x.log") && !e.Ignored) {
			t.Fatalf("ignored path tracked: %+v", e)
		}
	}
	if got := target.TooBig(); !reflect.DeepEqual(got, []string{"big.dat"}) {
		t.Fatalf("too big: %v", got)
	}
	write(t, root, "build/out.bin", "new build", 0o644)
	write(t, root, "big.dat", strings.Repeat("y", 3<<10), 0o644)
	latest := take(t, s, root)
	rep, err := s.Restore(context.Background(), target, latest, false)
	if err != nil || !rep.OK() {
		t.Fatalf("restore: %v %+v", err, rep)
	}
	if !reflect.DeepEqual(rep.Untracked, []string{"big.dat"}) {
		t.Fatalf("untracked: %v", rep.Untracked)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "build/out.bin")); string(b) != "new build" {
		t.Fatal("an ignored file was touched")
	}
	if MaxFileSize != 10<<20 || Open(root).maxSize != MaxFileSize {
		t.Fatal("the size limit is not 10 MiB")
	}
}

func TestStatCacheSkipsUnchangedAndSeesInPlaceRewrite(t *testing.T) {
	s, root := setup(t)
	write(t, root, "f.txt", "aaaa", 0o644)
	// Dated an hour back: a file modified within racyWindow of a scan is
	// never cached, and the test would then not reach the cache at all.
	p := filepath.Join(root, "f.txt")
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	m1 := take(t, s, root)
	// With f.txt's blob gone from the store, a scan that reads the file
	// again stores it again; one that trusts the cache does not.
	if len(m1.Entries) != 1 || m1.Entries[0].Blob == "" {
		t.Fatalf("manifest %+v", m1.Entries)
	}
	blob := m1.Entries[0].Blob
	if err := os.Remove(s.blobPath(blob)); err != nil {
		t.Fatal(err)
	}
	m2 := take(t, s, root)
	if m1.ID != m2.ID {
		t.Fatalf("an unchanged tree gave two checkpoints: %s %s", m1.ID, m2.ID)
	}
	if s.hasBlob(blob) {
		t.Fatal("an unchanged file was read again")
	}
	// Same size, mtime forced back: ctime/inode still tell.
	write(t, root, "f.txt", "bbbb", 0o644)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	m3 := take(t, s, root)
	if m3.ID == m1.ID {
		t.Fatal("a rewrite with the same size and mtime went unseen")
	}
}

// TestPropertyRewindToAnyTurn runs random create/modify/delete/chmod/
// rename sequences over several turns, checkpointing before each, and
// rewinds to a random turn: the tree equals the one recorded then.
func TestPropertyRewindToAnyTurn(t *testing.T) {
	for seed := range uint64(25) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 7))
			s, root := setup(t)
			names := []string{"a", "b", "d/c", "d/e/f", "g", "h/i"}
			for _, n := range names[:3] {
				write(t, root, n, "init "+n, 0o644)
			}
			var trees []map[string]node
			var cps []*Manifest
			for range 2 + r.IntN(4) {
				trees = append(trees, treeOf(t, root))
				cps = append(cps, take(t, s, root))
				for range 1 + r.IntN(5) {
					mutate(t, r, root, names)
				}
			}
			latest := take(t, s, root)
			k := r.IntN(len(cps))
			rep, err := s.Restore(context.Background(), cps[k], latest, false)
			if err != nil || !rep.OK() {
				t.Fatalf("restore: %v %+v", err, rep)
			}
			if got := treeOf(t, root); !reflect.DeepEqual(got, trees[k]) {
				t.Fatalf("rewind to %d:\n got %v\nwant %v", k, got, trees[k])
			}
		})
	}
}

func mutate(t *testing.T, r *rand.Rand, root string, names []string) {
	n := names[r.IntN(len(names))]
	p := filepath.Join(root, n)
	switch r.IntN(5) {
	case 0, 1: // create or modify
		write(t, root, n, fmt.Sprintf("v%d", r.IntN(1000)), 0o644)
	case 2:
		os.Remove(p)
	case 3:
		if _, err := os.Stat(p); err == nil {
			os.Chmod(p, []fs.FileMode{0o600, 0o755, 0o644}[r.IntN(3)])
		}
	case 4:
		to := names[r.IntN(len(names))]
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && to != n {
			os.MkdirAll(filepath.Dir(filepath.Join(root, to)), 0o755)
			os.Rename(p, filepath.Join(root, to))
		}
	}
}

// TestRestoreNeverWritesThroughASymlink: a turn replaced a directory by
// a symlink pointing outside the tree, and the symlink then changed by
// hand (so the rewind may not remove it): restoring the files that were
// in the directory must not write through the link.
func TestRestoreNeverWritesThroughASymlink(t *testing.T) {
	s, root := setup(t)
	outside := t.TempDir()
	write(t, root, "d/secret.txt", "inside\n", 0o644)
	target := take(t, s, root)
	os.RemoveAll(filepath.Join(root, "d"))
	os.Symlink(t.TempDir(), filepath.Join(root, "d"))
	latest := take(t, s, root)
	os.Remove(filepath.Join(root, "d"))
	os.Symlink(outside, filepath.Join(root, "d")) // changed outside talaria
	for _, force := range []bool{false, true} {
		rep, err := s.Restore(context.Background(), target, latest, force)
		if err != nil {
			t.Fatal(err)
		}
		if entries, _ := os.ReadDir(outside); len(entries) != 0 {
			t.Fatalf("force=%v: restore wrote through the symlink: %v (report %+v)", force, entries, rep)
		}
		if !force && rep.OK() {
			t.Fatalf("the changed symlink was not refused: %+v", rep)
		}
	}
	if b, err := os.ReadFile(filepath.Join(root, "d/secret.txt")); err != nil || string(b) != "inside\n" {
		t.Fatalf("forced restore did not bring the directory back: %q %v", b, err)
	}
}

func TestInsideRefusesEscapes(t *testing.T) {
	for _, rel := range []string{"", "/etc/passwd", "../x", "a/../../x"} {
		if _, err := inside(rel); err == nil {
			t.Errorf("inside(%q) accepted", rel)
		}
	}
	if p, err := inside("a/b"); err != nil || p != filepath.Join("a", "b") {
		t.Errorf("inside(a/b) = %q, %v", p, err)
	}
}

func TestHomeIsNotTrackedAndLimitsHold(t *testing.T) {
	root := t.TempDir()
	s := Open(filepath.Join(root, ".talaria")) // $TALARIA_HOME inside the tree
	write(t, root, ".talaria/state.db", "the store", 0o600)
	write(t, root, "a.txt", "a", 0o644)
	m := take(t, s, root)
	for _, e := range m.Entries {
		if strings.HasPrefix(e.Path, ".talaria") {
			t.Fatalf("$TALARIA_HOME tracked: %s", e.Path)
		}
	}
	s.maxEntries = 1
	write(t, root, "b.txt", "b", 0o644)
	if _, err := s.Take(context.Background(), root); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("entries over the limit: %v", err)
	}
	s.maxEntries, s.maxNewBytes = MaxEntries, 4
	write(t, root, "c.txt", "12345", 0o644)
	if _, err := s.Take(context.Background(), root); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("new bytes over the limit: %v", err)
	}
}

// TestRestoreKeepsWhatItDoesNotHold: .env is ignored when the checkpoint
// is taken; the turn un-ignores it (and a FIFO and an ignored directory
// stand beside it). Nothing of what existed before is removed or changed,
// the listing calls none of it created, and the rewind says what it
// left.
func TestRestoreKeepsWhatItDoesNotHold(t *testing.T) {
	s, root := setup(t)
	write(t, root, ".gitignore", ".env\nbuild/\n", 0o644)
	write(t, root, ".env", "KEY=1\n", 0o600)
	write(t, root, "build/out.o", "obj", 0o644)
	if err := syscall.Mkfifo(filepath.Join(root, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	target := take(t, s, root)
	write(t, root, ".gitignore", "", 0o644) // everything tracked now
	write(t, root, "build/new.o", "new", 0o644)
	write(t, root, "made.txt", "by the turn", 0o644)
	latest := take(t, s, root)
	var created []string
	for _, c := range Changes(target, latest) {
		if c.Kind == Created {
			created = append(created, c.Path)
		}
	}
	if !reflect.DeepEqual(created, []string{"made.txt"}) {
		t.Fatalf("created: %v (only made.txt is new)", created)
	}
	rep, err := s.Restore(context.Background(), target, latest, false)
	if err != nil || !rep.OK() {
		t.Fatalf("restore: %v %+v", err, rep)
	}
	got := treeOf(t, root)
	if got[".env"].Data != "KEY=1\n" || got["build/out.o"].Data != "obj" || got["build/new.o"].Data != "new" ||
		got["pipe"].Mode&fs.ModeNamedPipe == 0 || got[".gitignore"].Data != ".env\nbuild/\n" {
		t.Fatalf("after restore: %v", got)
	}
	if _, ok := got["made.txt"]; ok {
		t.Fatal("the created file is still there")
	}
	// Below build/, unread then, which existed is not known: both stay.
	if !reflect.DeepEqual(rep.Ignored, []string{"build/new.o", "build/out.o"}) {
		t.Fatalf("not restored (ignored): %v", rep.Ignored)
	}
	// Even forced, a path below a directory that was not read stays.
	rep, err = s.Restore(context.Background(), target, latest, true)
	if err != nil || treeOf(t, root)["build/new.o"].Data != "new" {
		t.Fatalf("forced restore: %v %+v", err, rep)
	}
}

// TestRestoreNeverChmodsThroughASymlink: a directory replaced by a
// symlink to a directory outside the tree, then ignored: the restore
// makes the directory again and leaves the outside one alone.
func TestRestoreNeverChmodsThroughASymlink(t *testing.T) {
	s, root := setup(t)
	outside := t.TempDir()
	os.Chmod(outside, 0o700)
	write(t, root, "d/f", "f", 0o644)
	os.Chmod(filepath.Join(root, "d"), 0o777)
	target := take(t, s, root)
	os.RemoveAll(filepath.Join(root, "d"))
	os.Symlink(outside, filepath.Join(root, "d"))
	write(t, root, ".gitignore", "d\n", 0o644)
	latest := take(t, s, root)
	rep, err := s.Restore(context.Background(), target, latest, true)
	if err != nil || !rep.OK() {
		t.Fatalf("restore: %v %+v", err, rep)
	}
	if st, _ := os.Lstat(outside); st.Mode().Perm() != 0o700 {
		t.Fatalf("outside directory mode %v", st.Mode())
	}
	if st, _ := os.Lstat(filepath.Join(root, "d")); !st.IsDir() || st.Mode().Perm() != 0o777 {
		t.Fatalf("d: %v", st.Mode())
	}
	if got := treeOf(t, root)["d/f"].Data; got != "f" {
		t.Fatalf("d/f = %q", got)
	}
}
