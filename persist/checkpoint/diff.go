package checkpoint

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/aymanbagabas/go-udiff"
)

// Change kinds.
const (
	Created = "created"
	Changed = "changed"
	Deleted = "deleted"
)

// Change is one path that differs between two checkpoints.
type Change struct {
	Path string `json:"path"`
	// Kind is Created, Changed or Deleted.
	Kind string `json:"kind"`
}

// Changes lists the files and symlinks that differ from a to b, by path
// (directories are not listed). A nil manifest is an empty tree. What
// neither side tracks (ignored, special files) is not listed; a path one
// side ignores is compared by its stat (an ignored .env that a turn's new
// .gitignore made tracked is not "created"); a path below a directory
// the other side did not read is not listed (whether it was there is not
// known).
func Changes(a, b *Manifest) []Change {
	return changes(indexOf(a), indexOf(b))
}

// changes is Changes on the manifests' indexes.
func changes(ai, bi map[string]*Entry) []Change {
	var out []Change
	for _, p := range unionPaths(ai, bi) {
		x, y := ai[p], bi[p]
		if (x != nil && x.Type == TypeDir) || (y != nil && y.Type == TypeDir) {
			if x == nil || y == nil || x.Type == y.Type {
				continue
			}
		}
		if !x.tracked() && !y.tracked() {
			continue
		}
		switch {
		case x == nil && underOpaque(ai, p), y == nil && underOpaque(bi, p):
			continue
		case x == nil:
			out = append(out, Change{Path: p, Kind: Created})
		case y == nil:
			out = append(out, Change{Path: p, Kind: Deleted})
		case !x.same(y):
			out = append(out, Change{Path: p, Kind: Changed})
		}
	}
	return out
}

// underOpaque reports whether some directory above p is an entry of idx
// whose names were not listed.
func underOpaque(idx map[string]*Entry, p string) bool {
	for d := path.Dir(p); d != "." && d != "/" && d != ""; d = path.Dir(d) {
		if e := idx[d]; e != nil && e.Type == TypeDir && e.Opaque {
			return true
		}
	}
	return false
}

// indexOf indexes a manifest, nil meaning empty.
func indexOf(m *Manifest) map[string]*Entry {
	if m == nil {
		return map[string]*Entry{}
	}
	return m.index()
}

// unionPaths returns the paths of all indexes, sorted.
func unionPaths(idx ...map[string]*Entry) []string {
	seen := map[string]struct{}{}
	for _, m := range idx {
		for p := range m {
			seen[p] = struct{}{}
		}
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// Diff returns the unified diff from a to b (git's "a/" and "b/" labels,
// /dev/null for a created or deleted file, mode lines for a mode change,
// one line for a binary file or one over the size limit).
func (s *Store) Diff(a, b *Manifest) (string, error) {
	ai, bi := indexOf(a), indexOf(b)
	var out strings.Builder
	for _, c := range changes(ai, bi) {
		x, y := ai[c.Path], bi[c.Path]
		if x != nil && x.Type == TypeDir {
			x = nil
		}
		if y != nil && y.Type == TypeDir {
			y = nil
		}
		fmt.Fprintf(&out, "diff --talaria a/%s b/%s\n", c.Path, c.Path)
		switch {
		case x == nil:
			fmt.Fprintf(&out, "new file mode %s\n", gitMode(y))
		case y == nil:
			fmt.Fprintf(&out, "deleted file mode %s\n", gitMode(x))
		case gitMode(x) != gitMode(y):
			fmt.Fprintf(&out, "old mode %s\nnew mode %s\n", gitMode(x), gitMode(y))
		}
		before, okA, err := s.content(x)
		if err != nil {
			return "", err
		}
		after, okB, err := s.content(y)
		if err != nil {
			return "", err
		}
		if !okA || !okB || isBinary(before) || isBinary(after) {
			if before != after || !okA || !okB {
				if !okA || !okB {
					fmt.Fprintf(&out, "Contents not recorded (over %d MiB, ignored or not a regular file) differ: %s\n", MaxFileSize>>20, c.Path)
				} else {
					fmt.Fprintf(&out, "Binary files differ: %s\n", c.Path)
				}
			}
			continue
		}
		from, to := "a/"+c.Path, "b/"+c.Path
		if x == nil {
			from = "/dev/null"
		}
		if y == nil {
			to = "/dev/null"
		}
		out.WriteString(udiff.Unified(from, to, before, after))
	}
	return out.String(), nil
}

// content returns an entry's text for the diff: a file's contents, a
// symlink's target; ok is false for a file whose contents are not stored.
func (s *Store) content(e *Entry) (string, bool, error) {
	switch {
	case e == nil:
		return "", true, nil
	case e.Type == TypeSymlink:
		return e.Target + "\n", true, nil
	case !e.held():
		return "", false, nil
	}
	data, err := s.readBlob(e.Blob)
	if err != nil {
		return "", false, err
	}
	return string(data), true, nil
}

// isBinary reports text with a NUL byte in its first 8 KiB, as git does.
func isBinary(s string) bool {
	return strings.IndexByte(s[:min(len(s), 8000)], 0) >= 0
}

// gitMode writes an entry's mode as git does.
func gitMode(e *Entry) string {
	if e.Type == TypeSymlink {
		return "120000"
	}
	return fmt.Sprintf("100%03o", e.Mode&0o777)
}
