package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Conflict is a path a restore left alone.
type Conflict struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Report says what a restore did.
type Report struct {
	// Restored lists the paths written back or removed.
	Restored []string `json:"restored"`
	// Refused lists the paths changed outside talaria since it last
	// recorded them: not overwritten without force.
	Refused []Conflict `json:"refused,omitempty"`
	// Untracked lists files over the size limit that differ: never
	// restored, and no failure.
	Untracked []string `json:"untracked,omitempty"`
	// Errors lists paths that could not be restored, with the reason.
	Errors []Conflict `json:"errors,omitempty"`
	// Saved is the checkpoint of the tree as it was just before the
	// restore, so that the restore itself can be taken back.
	Saved string `json:"saved"`
}

// OK reports whether everything tracked was restored.
func (r *Report) OK() bool { return len(r.Refused) == 0 && len(r.Errors) == 0 }

// op is one planned change to the tree.
type op struct {
	path string
	want *Entry // nil: remove
}

// Restore brings the tree back to target, taking back what happened since
// then as far as latest (the newest state talaria recorded). Only paths
// that differ between target and latest are touched: a created file is
// removed (and directories left empty by that, unless target had them), a
// changed or deleted file is written back byte for byte with its mode, a
// symlink as a symlink. A path whose current state is neither latest's nor
// target's was changed outside talaria: it is refused unless force. The
// tree as it was is checkpointed first (Report.Saved).
func (s *Store) Restore(ctx context.Context, target, latest *Manifest, force bool) (*Report, error) {
	root := target.Root
	cur, err := s.Take(ctx, root)
	if err != nil {
		return nil, err
	}
	rep := &Report{Saved: cur.ID, Restored: []string{}}
	ti, li, ci := target.index(), indexOf(latest), cur.index()
	var ops []op
	var dirs []string // directories talaria created since target
	for _, p := range unionPaths(ti, li, ci) {
		t, l, c := ti[p], li[p], ci[p]
		wasDir := isDir(c)
		if isDir(t) || isDir(l) || isDir(c) {
			if isDir(l) && t == nil {
				dirs = append(dirs, p)
			}
			if !(isDir(t) && (c == nil || isDir(c))) && !(t == nil && isDir(c)) {
				// A directory replaced by a file or the reverse: handle
				// the file side below.
				if isDir(t) {
					t = nil
				}
				if isDir(l) {
					l = nil
				}
				if isDir(c) {
					c = nil
				}
			} else {
				if isDir(t) && c == nil {
					ops = append(ops, op{path: p, want: t})
				}
				continue
			}
		}
		if t.same(l) || t.same(c) {
			continue
		}
		if (t != nil && t.TooBig) || (l != nil && l.TooBig) || (c != nil && c.TooBig) {
			rep.Untracked = append(rep.Untracked, p)
			continue
		}
		outside := !c.same(l)
		if c == nil && !outside && !wasDir {
			// Not tracked now, but is it there (ignored, say)?
			if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p))); err == nil {
				outside = true
			}
		}
		if outside && !force {
			rep.Refused = append(rep.Refused, Conflict{Path: p, Reason: "changed outside talaria since it was last recorded"})
			continue
		}
		ops = append(ops, op{path: p, want: t})
	}
	s.apply(ctx, root, ops, dirs, ti, rep)
	return rep, nil
}

// isDir reports a directory entry.
func isDir(e *Entry) bool { return e != nil && e.Type == TypeDir }

// apply runs the planned ops: removals deepest first, then writes, then
// the removal of directories left empty that target did not have.
func (s *Store) apply(ctx context.Context, root string, ops []op, dirs []string, target map[string]*Entry, rep *Report) {
	sort.Slice(ops, func(i, j int) bool {
		a, b := ops[i], ops[j]
		switch {
		case (a.want == nil) != (b.want == nil):
			return a.want == nil // removals first
		case a.want == nil:
			return a.path > b.path // deepest first
		}
		return a.path < b.path
	})
	var emptied []string
	for _, o := range ops {
		if ctx.Err() != nil {
			rep.Errors = append(rep.Errors, Conflict{Path: o.path, Reason: ctx.Err().Error()})
			continue
		}
		abs, err := inside(root, o.path)
		if err != nil {
			rep.Errors = append(rep.Errors, Conflict{Path: o.path, Reason: err.Error()})
			continue
		}
		if o.want == nil {
			err = os.Remove(abs)
			if errors.Is(err, fs.ErrNotExist) {
				err = nil
			}
			emptied = append(emptied, filepath.Dir(o.path))
		} else {
			err = s.write(abs, o.want)
		}
		if err != nil {
			rep.Errors = append(rep.Errors, Conflict{Path: o.path, Reason: err.Error()})
			continue
		}
		rep.Restored = append(rep.Restored, o.path)
	}
	// Directories created since target, deepest first, and the parents
	// of removed files: removed when empty and not in target.
	cands := append(dirs, emptied...)
	for _, d := range cands {
		for ; d != "." && d != "" && d != "/"; d = filepath.ToSlash(filepath.Dir(d)) {
			if isDir(target[d]) {
				break
			}
			cands = append(cands, d)
		}
	}
	slices.SortFunc(cands, func(a, b string) int { return strings.Compare(b, a) })
	for _, d := range slices.Compact(cands) {
		if d == "." || d == "" || isDir(target[d]) {
			continue
		}
		_ = os.Remove(filepath.Join(root, filepath.FromSlash(d))) // fails when not empty: kept
	}
}

// write makes abs what e says: a directory, a symlink, or a file with its
// stored contents and mode (written through a temporary file and renamed
// over, so that a reader never sees half a file).
func (s *Store) write(abs string, e *Entry) error {
	if e.Type == TypeDir {
		if err := os.MkdirAll(abs, fs.FileMode(e.Mode)|0o700); err != nil {
			return err
		}
		return os.Chmod(abs, fs.FileMode(e.Mode))
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return err
	}
	if st, err := os.Lstat(abs); err == nil && st.IsDir() {
		if err := os.Remove(abs); err != nil {
			return fmt.Errorf("a directory is in the way: %w", err)
		}
	}
	if e.Type == TypeSymlink {
		tmp := abs + ".talaria-" + randHex()
		if err := os.Symlink(e.Target, tmp); err != nil {
			return err
		}
		if err := os.Rename(tmp, abs); err != nil {
			os.Remove(tmp)
			return err
		}
		return nil
	}
	data, err := s.readBlob(e.Blob)
	if err != nil {
		return err
	}
	tmp := filepath.Join(filepath.Dir(abs), "."+filepath.Base(abs)+".talaria-"+randHex())
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, fileMode(e.Mode))
	}
	if err == nil {
		err = os.Rename(tmp, abs)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// fileMode converts a stored mode (fs.FileMode bits) to an os.FileMode,
// keeping only the permission and setuid/setgid/sticky bits.
func fileMode(m uint32) fs.FileMode {
	return fs.FileMode(m) & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
}

// inside resolves rel (slash-separated) under root, refusing a path that
// would leave it: absolute, with "..", or through a symlink (a turn may
// have put one where a directory was; writing through it would write
// outside the tree).
func inside(root, rel string) (string, error) {
	if rel == "" || strings.HasPrefix(rel, "/") || slices.Contains(strings.Split(rel, "/"), "..") {
		return "", fmt.Errorf("not a path inside %s", root)
	}
	dir := root
	parts := strings.Split(rel, "/")
	for _, p := range parts[:len(parts)-1] {
		dir = filepath.Join(dir, p)
		st, err := os.Lstat(dir)
		if errors.Is(err, fs.ErrNotExist) {
			break // created as a directory when written
		}
		if err != nil {
			return "", err
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			return "", fmt.Errorf("%s is a symlink now: not written through", relSlash(root, dir))
		}
	}
	return filepath.Join(root, filepath.FromSlash(rel)), nil
}
