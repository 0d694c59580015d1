package tools

import (
	"context"
	"io/fs"
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
	return walkIgnoring(ctx, root, true, true, fn)
}
