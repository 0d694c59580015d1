package checkpoint

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// FuzzNamesRoundTrip: file names come from commands the model runs, so
// any name the file system takes (newlines, backslashes, odd UTF-8,
// leading dashes) must survive a checkpoint and come back on restore,
// with nothing written outside the tree.
func FuzzNamesRoundTrip(f *testing.F) {
	f.Add("a.txt\x00dir\\x\x00 spaced name \x00-rf")
	f.Add("new\nline\x00\xff\xfe\x00.hidden\x00ü.go")
	f.Fuzz(func(t *testing.T, names string) {
		parent := t.TempDir()
		root := filepath.Join(parent, "tree")
		if err := os.Mkdir(root, 0o755); err != nil {
			t.Fatal(err)
		}
		s := Open(t.TempDir())
		n := 0
		for _, name := range strings.Split(names, "\x00") {
			if name == "" || name == "." || name == ".." || strings.Contains(name, "/") || name == ".git" || len(name) > 200 || n >= 6 {
				continue
			}
			if os.WriteFile(filepath.Join(root, name), []byte(name), 0o644) == nil {
				n++
			}
		}
		before := treeOf(t, root)
		target := take(t, s, root)
		ents, _ := os.ReadDir(root)
		for _, e := range ents {
			os.RemoveAll(filepath.Join(root, e.Name()))
		}
		os.WriteFile(filepath.Join(root, "created"), []byte("x"), 0o644)
		latest := take(t, s, root)
		rep, err := s.Restore(context.Background(), target, latest, false)
		if err != nil || !rep.OK() {
			t.Fatalf("restore: %v %+v", err, rep)
		}
		// Ignored names (a .gitignore among them) are not tracked: compare
		// what was.
		after := treeOf(t, root)
		for p := range before {
			if !target.index()[p].tracked() {
				delete(before, p)
			}
		}
		for p := range after {
			if !target.index()[p].tracked() {
				delete(after, p)
			}
		}
		if !reflect.DeepEqual(before, after) {
			t.Fatalf("names did not round-trip:\nbefore %q\nafter  %q", before, after)
		}
		if outside, _ := os.ReadDir(parent); len(outside) != 1 {
			t.Fatalf("restore wrote beside the tree: %v", outside)
		}
	})
}
