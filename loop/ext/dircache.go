package ext

import (
	"io/fs"
	"os"
	"path/filepath"
)

// maxOpenDirs bounds the folders a Load keeps open.
const maxOpenDirs = 64

// dirCache keeps the folders Load lists open until it ends, so that the
// files in them (and in their subfolders: a skill's SKILL.md) are opened
// relative to the folder: the kernel walks one or two names instead of
// the whole path, which for hundreds of small files is much of the cost
// of start-up.
type dirCache struct {
	open map[string]*os.File
}

// readDir lists at most maxDirEntries entries of dir, sorted by name, and
// keeps dir open for the files read from it next.
func (s *Set) readDir(dir string) ([]fs.DirEntry, bool) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, false
	}
	ents, err := f.ReadDir(maxDirEntries)
	more := false
	if err == nil && len(ents) == maxDirEntries {
		if extra, _ := f.ReadDir(1); len(extra) > 0 {
			more = true
		}
	}
	sortEntries(ents)
	if c := s.dirs; c != nil && len(c.open) < maxOpenDirs {
		if old, dup := c.open[dir]; dup {
			old.Close()
		}
		c.open[dir] = f
	} else {
		f.Close()
	}
	return ents, more
}

// read reads an extension file, relative to its folder or the folder
// above when Load keeps one open, else by its path.
func (s *Set) read(path string) ([]byte, error) {
	if c := s.dirs; c != nil {
		dir, name := filepath.Split(path)
		dir = filepath.Clean(dir)
		if f, ok := c.open[dir]; ok {
			return readFileAt(f, name, path)
		}
		up, sub := filepath.Split(dir)
		if f, ok := c.open[filepath.Clean(up)]; ok {
			return readFileAt(f, sub+string(filepath.Separator)+name, path)
		}
	}
	return readFile(path)
}

// close closes the folders kept open.
func (c *dirCache) close() {
	if c == nil {
		return
	}
	for _, f := range c.open {
		f.Close()
	}
	clear(c.open)
}
