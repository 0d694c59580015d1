package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
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
	// Untracked lists the paths that differ but whose contents the
	// checkpoint does not hold (files over the size limit, ignored and
	// special files, paths below an ignored directory): never restored
	// nor removed, and no failure.
	Untracked []string `json:"untracked,omitempty"`
	// Ignored is the part of Untracked that was ignored by .gitignore (or
	// a special file, or below an ignored directory) when the checkpoint
	// was taken; the rest is over the size limit.
	Ignored []string `json:"ignored,omitempty"`
	// Errors lists paths that could not be restored, with the reason.
	Errors []Conflict `json:"errors,omitempty"`
	// Saved is the checkpoint of the tree as it was just before the
	// restore, so that the restore itself can be taken back.
	Saved string `json:"saved"`
}

// OK reports whether everything tracked was restored.
func (r *Report) OK() bool { return len(r.Refused) == 0 && len(r.Errors) == 0 }

// untracked lists p as not restored; ignored says why.
func (r *Report) untracked(p string, ignored bool) {
	r.Untracked = append(r.Untracked, p)
	if ignored {
		r.Ignored = append(r.Ignored, p)
	}
}

// op is one planned change to the tree.
type op struct {
	path string
	want *Entry // nil: remove
	have *Entry // what the path was when planned (nil: nothing)
}

// Restore brings the tree back to target, taking back what happened since
// then as far as latest (the newest state talaria recorded). Only paths
// that differ between target and latest are touched: a created file is
// removed (and directories left empty by that, unless target had them), a
// changed or deleted file is written back byte for byte with its mode, a
// symlink as a symlink. A path whose current state is neither latest's nor
// target's was changed outside talaria: it is refused unless force. A path
// whose contents target does not hold (ignored, special, too big, below an
// ignored directory, or not known to have been absent) is never removed
// or altered, force or not. Every change goes through the tree's root
// handle ([os.Root]) after an Lstat that finds the path as planned, and
// never follows a symlink: a directory a turn replaced by a symlink is
// not written or chmodded through it. The tree as it was is checkpointed
// first (Report.Saved).
func (s *Store) Restore(ctx context.Context, target, latest *Manifest, force bool) (*Report, error) {
	root := target.Root
	cur, err := s.Take(ctx, root)
	if err != nil {
		return nil, err
	}
	unlock, err := s.lock(ctx, false) // the blobs read below stay
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	defer unlock()
	rep := &Report{Saved: cur.ID, Restored: []string{}}
	ops, dirs := plan(target, latest, cur, force, rep)
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	defer r.Close()
	s.apply(ctx, r, ops, dirs, target.index(), rep)
	return rep, nil
}

// plan decides what a restore changes: ops, and the directories talaria
// created since target (removed at the end when empty).
func plan(target, latest, cur *Manifest, force bool, rep *Report) ([]op, []string) {
	ti, li, ci := target.index(), indexOf(latest), cur.index()
	var ops []op
	var dirs []string
	for _, p := range unionPaths(ti, li, ci) {
		t, l, c := ti[p], li[p], ci[p]
		// Not held by target: left as it is, listed when it changed.
		if t != nil && !t.held() {
			if !t.same(c) && !(isDir(t) && isDir(c)) {
				rep.untracked(p, !t.TooBig)
			}
			continue
		}
		if !t.tracked() && !l.tracked() && !c.tracked() {
			// Never tracked (created ignored, say): left as it is.
			if c != nil && !t.same(c) {
				rep.untracked(p, true)
			}
			continue
		}
		if t == nil && !absentIn(target, ti, p) {
			if c.tracked() && !isDir(c) {
				rep.untracked(p, true)
			}
			continue
		}
		if isDir(t) && isDir(c) {
			continue // directory modes are not restored
		}
		if t == nil && isDir(c) {
			if isDir(l) {
				dirs = append(dirs, p)
			}
			continue
		}
		if isDir(t) && c == nil {
			ops = append(ops, op{path: p, want: t})
			continue
		}
		// Files, symlinks and special files; a directory on one side
		// only is handled as nothing on that side, then (for target's)
		// made again once the other side is gone.
		tf, lf, cf := nonDir(t), nonDir(l), nonDir(c)
		switch {
		case tf.same(lf) || (tf.same(cf) && !isDir(t)):
			continue
		case (tf != nil && tf.TooBig) || (lf != nil && lf.TooBig) || (cf != nil && cf.TooBig):
			rep.untracked(p, false)
			continue
		}
		outside := !cf.same(lf)
		if cf == nil && !outside && !isDir(c) && !target.Complete {
			// An older checkpoint does not list ignored paths: is it
			// there, untracked now?
			if _, err := os.Lstat(filepath.Join(target.Root, filepath.FromSlash(p))); err == nil {
				outside = true
			}
		}
		if outside && !force {
			rep.Refused = append(rep.Refused, Conflict{Path: p, Reason: "changed outside talaria since it was last recorded"})
			continue
		}
		if !tf.same(cf) {
			ops = append(ops, op{path: p, want: tf, have: c})
		}
		if isDir(t) {
			ops = append(ops, op{path: p, want: t})
		}
	}
	return ops, dirs
}

// absentIn reports whether p is known not to have been in m: m lists
// every name (Complete, or an older checkpoint, which is trusted as
// before) and no directory above p was left unread.
func absentIn(m *Manifest, idx map[string]*Entry, p string) bool {
	if !m.Complete {
		return true
	}
	for d := path.Dir(p); d != "." && d != "/" && d != ""; d = path.Dir(d) {
		e := idx[d]
		if e == nil || e.Type != TypeDir {
			return true // nothing could be below a file or nothing
		}
		if e.Opaque || e.Ignored {
			return false
		}
	}
	return true
}

// isDir reports a directory entry.
func isDir(e *Entry) bool { return e != nil && e.Type == TypeDir }

// nonDir is e unless it is a directory.
func nonDir(e *Entry) *Entry {
	if isDir(e) {
		return nil
	}
	return e
}

// apply runs the planned ops: removals deepest first, then writes, then
// the removal of directories left empty that target did not have.
func (s *Store) apply(ctx context.Context, r *os.Root, ops []op, dirs []string, target map[string]*Entry, rep *Report) {
	sort.SliceStable(ops, func(i, j int) bool {
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
	done := map[string]bool{}
	for _, o := range ops {
		if ctx.Err() != nil {
			rep.Errors = append(rep.Errors, Conflict{Path: o.path, Reason: ctx.Err().Error()})
			continue
		}
		rel, err := inside(o.path)
		if err == nil {
			err = noSymlinkAbove(r, rel)
		}
		if err == nil {
			if o.want == nil {
				err = remove(r, rel, o.have)
				emptied = append(emptied, path.Dir(o.path))
			} else {
				err = s.write(r, rel, o.want, o.have)
			}
		}
		if err != nil {
			rep.Errors = append(rep.Errors, Conflict{Path: o.path, Reason: err.Error()})
			continue
		}
		if !done[o.path] {
			done[o.path] = true
			rep.Restored = append(rep.Restored, o.path)
		}
	}
	// Directories created since target, deepest first, and the parents
	// of removed files: removed when empty and not in target.
	cands := append(dirs, emptied...)
	for _, d := range cands {
		for ; d != "." && d != "" && d != "/"; d = path.Dir(d) {
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
		rel, err := inside(d)
		if err != nil || noSymlinkAbove(r, rel) != nil {
			continue
		}
		if st, err := r.Lstat(rel); err == nil && st.IsDir() {
			_ = r.Remove(rel) // fails when not empty: kept
		}
	}
}

// matches reports whether what is at rel now is what the plan saw (have;
// nil: nothing), by Lstat: a path swapped since is not touched.
func matches(r *os.Root, rel string, have *Entry) error {
	st, err := r.Lstat(rel)
	if errors.Is(err, fs.ErrNotExist) {
		if have == nil {
			return nil
		}
		return nil // gone already: nothing to be wrong about
	}
	if err != nil {
		return err
	}
	now := statEntry(filepath.ToSlash(rel), st)
	if have == nil || now.Type != have.Type || (now.Type == TypeFile && (now.Size != have.Size || now.MTime != have.MTime)) {
		return errors.New("changed during the rewind: not touched")
	}
	return nil
}

// remove removes rel (a file, symlink or special file; an empty
// directory), never what is behind a symlink.
func remove(r *os.Root, rel string, have *Entry) error {
	if err := matches(r, rel, have); err != nil {
		return err
	}
	err := r.Remove(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// write makes rel what e says: a directory, a symlink, or a file with its
// stored contents and mode (written through a temporary file and renamed
// over, so that a reader never sees half a file). have is what the plan
// saw there.
func (s *Store) write(r *os.Root, rel string, e, have *Entry) error {
	if e.Type == TypeDir {
		return mkdir(r, rel, fileMode(e.Mode)&fs.ModePerm)
	}
	if err := mkdirs(r, filepath.Dir(rel)); err != nil {
		return err
	}
	if st, err := r.Lstat(rel); err == nil && st.IsDir() {
		if err := r.Remove(rel); err != nil {
			return fmt.Errorf("a directory is in the way: %w", err)
		}
	} else if err := matches(r, rel, have); err != nil {
		return err
	}
	tmp := filepath.Join(filepath.Dir(rel), "."+filepath.Base(rel)+".talaria-"+randHex())
	if e.Type == TypeSymlink {
		if err := r.Symlink(e.Target, tmp); err != nil {
			return err
		}
		if err := r.Rename(tmp, rel); err != nil {
			r.Remove(tmp)
			return err
		}
		return nil
	}
	data, err := s.readBlob(e.Blob)
	if err != nil {
		return err
	}
	// O_EXCL: never opens an existing file or follows a symlink.
	f, err := r.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(fileMode(e.Mode)) // on the descriptor: no path to follow
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = r.Rename(tmp, rel)
	}
	if err != nil {
		r.Remove(tmp)
	}
	return err
}

// mkdir makes rel a directory with mode perm: created if missing, its
// mode set on a descriptor of the directory itself when there, never
// through a symlink.
func mkdir(r *os.Root, rel string, perm fs.FileMode) error {
	if err := mkdirs(r, filepath.Dir(rel)); err != nil {
		return err
	}
	if err := r.Mkdir(rel, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return chmodDir(r, rel, perm)
}

// chmodDir sets a directory's mode through a descriptor checked to be
// the directory at rel (by Lstat, after the open): a symlink there is
// refused, not followed.
func chmodDir(r *os.Root, rel string, perm fs.FileMode) error {
	f, err := r.OpenFile(rel, os.O_RDONLY|openNoBlock|openDirectory, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	li, err := r.Lstat(rel)
	if err != nil {
		return err
	}
	if !li.IsDir() || !os.SameFile(fi, li) {
		return fmt.Errorf("%s is not a directory now (a symlink?): not changed", filepath.ToSlash(rel))
	}
	return f.Chmod(perm)
}

// mkdirs makes the directories down to rel (slash-free, relative), each
// checked by Lstat: a symlink on the way is refused.
func mkdirs(r *os.Root, rel string) error {
	if rel == "." || rel == "" {
		return nil
	}
	cur := ""
	for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
		cur = filepath.Join(cur, part)
		st, err := r.Lstat(cur)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if err := r.Mkdir(cur, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return err
			}
			if st, err = r.Lstat(cur); err != nil {
				return err
			}
		case err != nil:
			return err
		}
		if !st.IsDir() {
			return fmt.Errorf("%s is not a directory now (a symlink?): not written through", filepath.ToSlash(cur))
		}
	}
	return nil
}

// noSymlinkAbove refuses rel when a directory above it is a symlink now
// (a turn may have put one where a directory was; writing through it
// would write where the link points).
func noSymlinkAbove(r *os.Root, rel string) error {
	parts := strings.Split(filepath.ToSlash(rel), "/")
	cur := ""
	for _, p := range parts[:len(parts)-1] {
		cur = filepath.Join(cur, p)
		st, err := r.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			return nil // created as a directory when written
		}
		if err != nil {
			return err
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symlink now: not written through", filepath.ToSlash(cur))
		}
	}
	return nil
}

// fileMode converts a stored mode (fs.FileMode bits) to an os.FileMode,
// keeping only the permission and setuid/setgid/sticky bits.
func fileMode(m uint32) fs.FileMode {
	return fs.FileMode(m) & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
}

// inside converts rel (slash-separated, from a manifest) to a path
// relative to the root handle, refusing one that would leave it:
// absolute, empty, or with "..".
func inside(rel string) (string, error) {
	if rel == "" || rel == "." || strings.HasPrefix(rel, "/") || slices.Contains(strings.Split(rel, "/"), "..") {
		return "", fmt.Errorf("%q is not a path inside the tree", rel)
	}
	return filepath.FromSlash(rel), nil
}
