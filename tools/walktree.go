package tools

import (
	"context"
	"io/fs"
	"path/filepath"
)

// WalkTree walks the tree below root the way git sees it, hidden entries
// included: .git is skipped, .gitignore files (in every directory and in
// those between the git root and root) and .git/info/exclude are honoured,
// and ignored directories are pruned unread. fn gets every entry that is
// not ignored, directories too (root itself excepted), in lexical order
// within each directory; returning filepath.SkipDir from fn for a
// directory skips it, any other error ends the walk. Unreadable entries
// are skipped. Persisting checkpoints of the working tree uses it, so that
// they track exactly what the search tools see.
func WalkTree(ctx context.Context, root string, fn func(p string, d fs.DirEntry) error) error {
	w := &treeWalker{root: root, allowHidden: true}
	w.loadAncestors()
	n := 0
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil
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
		if err := fn(p, d); err != nil {
			return err
		}
		if isDir {
			w.push(p)
		}
		return nil
	})
}
