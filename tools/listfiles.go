package tools

import (
	"context"
	"io/fs"
	"path/filepath"
)

// ListFiles returns the files below root as git sees them (.gitignore and
// .git/info/exclude honoured, .git and hidden entries skipped), as
// slash-separated paths relative to root in lexical order, at most limit
// of them; truncated reports that there were more. It backs the
// composer's @path completion.
func ListFiles(ctx context.Context, root string, limit int) (files []string, truncated bool, err error) {
	err = walkFiles(ctx, root, false, func(p string, d fs.DirEntry) error {
		if len(files) >= limit {
			truncated = true
			return fs.SkipAll
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return nil
		}
		files = append(files, filepath.ToSlash(rel))
		return nil
	})
	return files, truncated, err
}
