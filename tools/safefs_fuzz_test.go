package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// treeSnapshot maps each file below dir (relative name) to its content.
func treeSnapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.Type()&os.ModeSymlink != 0 {
			out[rel] = "->"
			return nil
		}
		if d.IsDir() {
			out[rel+"/"] = ""
			return nil
		}
		b, err := os.ReadFile(p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sameSnapshot reports whether two snapshots are equal.
func sameSnapshot(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// FuzzWriteFileLandsWhereNamed: for any relative path the model may send,
// write_file changes .git only when the path names a .git directory,
// $TALARIA_HOME only when the path lies in it, and nothing outside the
// working directory when the path lies inside it, in a tree whose
// symlinks lead into each of them (d -> .git, h -> home, o -> ../outside,
// cfg -> .git/config) and within it (src -> packages/src).
func FuzzWriteFileLandsWhereNamed(f *testing.F) {
	for _, s := range []string{"d/config", "d/hooks/pre-commit", "o/config", "h/config", "cfg", "src/x", "src/new/y",
		"d/../d/config", "./d//config", ".git/config", "../outside/config", "../home/config", "src/../d/config", "o/../o/z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, path string) {
		if strings.HasPrefix(strings.TrimSpace(path), "~") || filepath.IsAbs(strings.TrimSpace(path)) {
			t.Skip("only relative paths: the test must not write outside its directory")
		}
		root := t.TempDir()
		proj := filepath.Join(root, "proj")
		gitDir, outside, home := filepath.Join(proj, ".git"), filepath.Join(root, "outside"), filepath.Join(root, "home")
		writeFiles(t, root, map[string]string{"proj/.git/config": "g", "outside/config": "o", "home/config": "h", "proj/packages/src/x": "x"})
		for link, to := range map[string]string{"d": ".git", "h": "../home", "o": "../outside", "cfg": ".git/config", "src": "packages/src"} {
			if err := os.Symlink(to, filepath.Join(proj, link)); err != nil {
				t.Fatal(err)
			}
		}
		lex, err := ResolvePath(proj, path)
		if err != nil || !isWithin(root, lex) || lex == root {
			t.Skip("not a path below the test directory")
		}
		before := map[string]map[string]string{gitDir: treeSnapshot(t, gitDir), outside: treeSnapshot(t, outside), home: treeSnapshot(t, home)}
		raw, _ := json.Marshal(map[string]any{"path": path, "content": "fuzz"})
		r := WriteFileTool{}.Run(context.Background(), &Env{Cwd: proj, Home: home}, raw)
		named := map[string]bool{gitDir: hasGitComponent(lex), home: isWithin(home, lex), outside: !isWithin(proj, lex)}
		for dir, snap := range before {
			if !named[dir] && !sameSnapshot(snap, treeSnapshot(t, dir)) {
				t.Fatalf("write_file %q (%s) changed %s; result: %s", path, lex, dir, r.Output)
			}
		}
	})
}
