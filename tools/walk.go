package tools

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ignoreFrame is the .gitignore of one directory during a walk.
type ignoreFrame struct {
	dir   string // absolute directory holding the .gitignore
	rules ignoreRules
}

// treeWalker walks a directory tree the way git sees it: .git is always
// skipped, .gitignore files (in every directory, and in the directories
// between the git root and the walk root), .git/info/exclude are honoured,
// and hidden entries (names starting with ".") are skipped unless
// allowHidden is set. Ignored directories are pruned without being read.
type treeWalker struct {
	root        string
	allowHidden bool
	frames      []ignoreFrame
}

// walkFiles calls fn for every non-directory entry below root (or for root
// itself when it is a file), in lexical order within each directory. fn
// may return fs.SkipAll to stop early; any other error ends the walk and is
// returned. Unreadable directories are skipped.
func walkFiles(ctx context.Context, root string, allowHidden bool, fn func(p string, d fs.DirEntry) error) error {
	info, err := os.Stat(root)
	if err != nil {
		return err
	}
	if !info.IsDir() {
		err := fn(root, fs.FileInfoToDirEntry(info))
		if err == fs.SkipAll {
			return nil
		}
		return err
	}
	// WalkDir does not descend into a symlinked root: walk its target
	// and report paths under the name the caller gave.
	shown := root
	if li, err := os.Lstat(root); err == nil && li.Mode()&fs.ModeSymlink != 0 {
		if real, err := filepath.EvalSymlinks(root); err == nil {
			root = real
		}
	}
	if shown != root {
		inner := fn
		fn = func(p string, d fs.DirEntry) error {
			return inner(shown+p[len(root):], d)
		}
	}
	return walkIgnoring(ctx, root, allowHidden, false, fn)
}

// walkIgnoring walks root pruning what git ignores (and hidden entries
// unless allowHidden); fn gets the files, and the directories too when
// withDirs (a directory is then entered unless fn returns SkipDir).
func walkIgnoring(ctx context.Context, root string, allowHidden, withDirs bool, fn func(p string, d fs.DirEntry) error) error {
	w := &treeWalker{root: root, allowHidden: allowHidden}
	w.loadAncestors()
	n := 0
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil // unreadable entry or directory: skip it
		}
		if n++; n%512 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if p == root {
			w.push(root)
			return nil
		}
		isDir := d.IsDir()
		if w.skip(p, d.Name(), isDir) {
			if isDir {
				return filepath.SkipDir
			}
			return nil
		}
		if isDir && !withDirs {
			w.push(p)
			return nil
		}
		if err := fn(p, d); err != nil {
			return err
		}
		if isDir {
			w.push(p)
		}
		return nil
	})
}

// skip reports whether the entry p is hidden, .git or ignored.
func (w *treeWalker) skip(p, name string, isDir bool) bool {
	if name == ".git" {
		return true
	}
	if !w.allowHidden && strings.HasPrefix(name, ".") {
		return true
	}
	parent := filepath.Dir(p)
	for len(w.frames) > 0 && !isWithin(w.frames[len(w.frames)-1].dir, parent) {
		w.frames = w.frames[:len(w.frames)-1]
	}
	for i := len(w.frames) - 1; i >= 0; i-- {
		f := &w.frames[i]
		rel := strings.TrimPrefix(p[len(f.dir):], string(filepath.Separator))
		if decided, ignored := f.rules.match(filepath.ToSlash(rel), isDir); decided {
			return ignored
		}
	}
	return false
}

// push loads the .gitignore of directory dir, if any, as the innermost
// frame.
func (w *treeWalker) push(dir string) {
	data, err := readIgnoreFile(filepath.Join(dir, ".gitignore"))
	if err != nil || len(data) == 0 {
		return
	}
	if rules := parseIgnore(string(data)); len(rules) > 0 {
		w.frames = append(w.frames, ignoreFrame{dir: dir, rules: rules})
	}
}

// loadAncestors finds the git root at or above the walk root and loads
// .git/info/exclude and the .gitignore files of the directories from the
// git root down to the walk root's parent.
func (w *treeWalker) loadAncestors() {
	var chain []string
	dir := filepath.Dir(w.root)
	if _, err := os.Stat(filepath.Join(w.root, ".git")); err == nil {
		w.loadExclude(w.root)
		return
	}
	for {
		chain = append(chain, dir)
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			break
		}
		up := filepath.Dir(dir)
		if up == dir {
			return // not in a git repository
		}
		dir = up
	}
	w.loadExclude(dir)
	for i := len(chain) - 1; i >= 0; i-- {
		w.push(chain[i])
	}
}

// loadExclude loads gitRoot/.git/info/exclude as the outermost frame.
func (w *treeWalker) loadExclude(gitRoot string) {
	data, err := readIgnoreFile(filepath.Join(gitRoot, ".git", "info", "exclude"))
	if err != nil {
		return
	}
	if rules := parseIgnore(string(data)); len(rules) > 0 {
		w.frames = append(w.frames, ignoreFrame{dir: gitRoot, rules: rules})
	}
}

// maxIgnoreFile bounds what is read of one .gitignore or info/exclude.
const maxIgnoreFile = 1 << 20

// readIgnoreFile reads an ignore file only when it is a regular file: it
// is opened non-blocking and checked on the descriptor, so a FIFO or a
// device swapped in for a .gitignore can neither hang a walk nor be read,
// and at most maxIgnoreFile bytes of it are read.
func readIgnoreFile(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	return io.ReadAll(io.LimitReader(f, maxIgnoreFile))
}
