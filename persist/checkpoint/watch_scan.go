package checkpoint

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"talaria/tools"
)

// takeDelta is a checkpoint from the last one (prev) and what changed
// since (d): the directories in d.shallow have their names listed again,
// those in d.deep (and any directory that is new) are scanned whole, and
// every other entry is prev's. Each step is the full scan's (take), so
// the result is what a walk would record; only the directories named are
// read. Under the store's shared lock. errWalk when a full walk is due.
func (s *Store) takeDelta(ctx context.Context, prev *walked, d dirtySet, w *Watcher) (*walked, error) {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	unlock, err := s.lock(ctx, false)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	defer unlock()
	start := time.Now()
	root := prev.m.Root
	listed := map[string]bool{".": true} // prev's listed directories
	for i := range prev.m.Entries {
		if e := &prev.m.Entries[i]; e.Type == TypeDir && !e.Opaque {
			listed[e.Path] = true
		}
	}
	deep := map[string]bool{}
	for p := range d.deep {
		if !hasAncestorIn(p, d.deep) {
			deep[p] = true
		}
	}
	if deep["."] {
		return nil, errWalk
	}
	shallow := map[string]bool{}
	for p := range d.shallow {
		if !deep[p] && !hasAncestorIn(p, deep) {
			shallow[p] = true
		}
	}
	for p := range deep {
		// A directory scanned whole has its own entry made again too.
		if parent := path.Dir(p); !deep[parent] && !hasAncestorIn(parent, deep) {
			shallow[parent] = true
		}
	}
	if len(shallow) == 0 && len(deep) == 0 {
		return prev, nil // nothing changed: the same checkpoint
	}
	// nav: the directories the walk passes through to reach those.
	nav := map[string]bool{}
	for _, set := range []map[string]bool{shallow, deep} {
		for p := range set {
			for q := p; q != "."; {
				q = path.Dir(q)
				nav[q] = true
			}
		}
	}
	for p := range deep {
		w.unwatch(p) // its watches are made again as it is scanned
	}
	newDeep := map[string]bool{} // directories found new: scanned whole
	inDeep := func(rel string) bool {
		for q := rel; ; q = path.Dir(q) {
			if deep[q] || newDeep[q] {
				return true
			}
			if q == "." {
				return false
			}
		}
	}
	var fresh []Entry // the entries made again
	var todo []pending
	var newBytes int64
	home := filepath.Dir(s.dir)
	var dirs []string // the directories whose every name is listed
	if shallow["."] {
		dirs = append(dirs, root)
	}
	seen := map[string]bool{}
	add := func(e Entry) {
		seen[e.Path] = true
		fresh = append(fresh, e)
	}
	err = tools.WalkTree(ctx, root, func(p string, de fs.DirEntry) error {
		if within(home, p) {
			return filepath.SkipDir
		}
		rel := relSlash(root, p)
		parent := path.Dir(rel)
		listing := shallow[parent] || inDeep(parent)
		if !listing {
			// Not an entry made again: only a way to one.
			if !de.IsDir() {
				return nil
			}
			if shallow[rel] {
				dirs = append(dirs, p)
				return nil
			}
			if nav[rel] {
				return nil
			}
			return filepath.SkipDir
		}
		info, err := de.Info()
		if err != nil {
			return nil // vanished since the directory was read
		}
		if info.IsDir() {
			e := Entry{Path: rel, Type: TypeDir, Mode: uint32(info.Mode().Perm())}
			if !regularOrAbsent(filepath.Join(p, ".gitignore")) {
				e.Opaque = true
				w.watchDir(p, false)
				add(e)
				return filepath.SkipDir
			}
			add(e)
			switch {
			case inDeep(rel):
			case !listed[rel]:
				newDeep[rel] = true // new (or newly listed): scanned whole
			case shallow[rel]:
				dirs = append(dirs, p)
				return nil
			case nav[rel]:
				return nil
			default:
				return filepath.SkipDir // unchanged below: prev's entries
			}
			w.watchDir(p, true)
			dirs = append(dirs, p)
			return nil
		}
		e, st, hash, ok := s.leafEntry(rel, p, info, prev.cache)
		if !ok {
			return nil
		}
		if hash {
			if newBytes += info.Size(); newBytes > s.maxNewBytes {
				return fmt.Errorf("%w: more than %d MiB of new contents", ErrTooLarge, s.maxNewBytes>>20)
			}
			todo = append(todo, pending{idx: len(fresh), abs: p, stat: st})
		}
		add(e)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("checkpoint: walking %s: %w", root, err)
	}
	part := &Manifest{Root: root, Entries: fresh}
	addIgnored := func(e Entry) error {
		part.Entries = append(part.Entries, e)
		return nil
	}
	if err := listIgnored(ctx, part, root, home, dirs, seen, addIgnored); err != nil {
		return nil, err
	}
	if err := s.hashAll(ctx, part, todo); err != nil {
		return nil, err
	}
	part.Entries = slices.DeleteFunc(part.Entries, func(e Entry) bool {
		return e.Type == TypeFile && !e.TooBig && !e.Ignored && e.Blob == ""
	})
	sortByPath(part.Entries)
	w.markOpaque(part)

	// prev's entries but those made again: the names of the directories
	// listed again, and everything below one scanned whole or no longer
	// listed.
	freshDirs := map[string]bool{}
	for i := range part.Entries {
		if e := &part.Entries[i]; e.Type == TypeDir && !e.Opaque {
			freshDirs[e.Path] = true
		}
	}
	gone := map[string]bool{} // directories whose whole subtree is replaced
	for p := range deep {
		gone[p] = true
	}
	for p := range newDeep {
		gone[p] = true
	}
	kept := make([]Entry, 0, len(prev.m.Entries))
	var dropped []string // the paths of prev not kept
	for _, e := range prev.m.Entries {
		parent := path.Dir(e.Path)
		if shallow[parent] {
			if e.Type == TypeDir && listed[e.Path] && !freshDirs[e.Path] {
				gone[e.Path] = true // its names went with it
			}
			dropped = append(dropped, e.Path)
			continue
		}
		if parent != "." && (gone[parent] || hasAncestorIn(parent, gone)) {
			dropped = append(dropped, e.Path)
			continue
		}
		kept = append(kept, e)
	}
	m := &Manifest{Root: root, Complete: true, Entries: mergeByPath(kept, part.Entries)}
	if len(m.Entries) > s.maxEntries {
		return nil, fmt.Errorf("checkpoint: %w: more than %d files and directories", ErrTooLarge, s.maxEntries)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	// The listings to build again: those listed again and their parents.
	changed := map[string]bool{}
	mark := func(p string) {
		for q := p; !changed[q]; q = path.Dir(q) {
			changed[q] = true
			if q == "." {
				break
			}
		}
	}
	for p := range shallow {
		mark(p)
	}
	for i := range part.Entries {
		if e := &part.Entries[i]; e.Type == TypeDir && (e.Opaque || inDeep(e.Path)) {
			mark(e.Path)
		}
	}
	trees, err := s.saveManifest(m, prev.trees, changed)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: saving the manifest: %w", err)
	}
	return &walked{m: m, trees: trees, cache: deltaCache(prev.cache, m, part.Entries, todo, start, dropped)}, nil
}

// listIgnored adds (through add) every name of dirs (absolute, listed
// directories) the walk did not give, by its stat: ignored, or gone unseen
// (the second pass of a walk and of a delta scan).
func listIgnored(ctx context.Context, m *Manifest, root, home string, dirs []string, seen map[string]bool, add func(Entry) error) error {
	for _, dir := range dirs {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("checkpoint: %w", err)
		}
		names, err := readNames(dir)
		if err != nil {
			if dir != root {
				markOpaque(m, relSlash(root, dir))
				continue
			}
			return fmt.Errorf("checkpoint: reading %s: %w", root, err)
		}
		for _, name := range names {
			p := filepath.Join(dir, name)
			rel := relSlash(root, p)
			if name == ".git" || seen[rel] || within(home, p) {
				continue
			}
			info, err := os.Lstat(p)
			if err != nil {
				continue
			}
			e := statEntry(rel, info)
			e.Ignored = true
			switch e.Type {
			case TypeDir:
				e.Opaque = true
			case TypeSymlink:
				if e.Target, err = os.Readlink(p); err != nil {
					continue
				}
			}
			if err := add(e); err != nil {
				return fmt.Errorf("checkpoint: %w", err)
			}
		}
	}
	return nil
}

// deltaCache is the stat cache after a delta scan: prev's (updated in
// place: the state it belongs to is replaced), less the paths made again
// or gone, plus the files made again as newCache would keep them.
func deltaCache(prev statCache, m *Manifest, fresh []Entry, todo []pending, start time.Time, dropped []string) statCache {
	old := make(map[string]cacheEntry, len(dropped))
	for _, p := range dropped {
		if e, ok := prev[p]; ok {
			old[p] = e
			delete(prev, p)
		}
	}
	cacheStored(prev, m.Root, fresh, old, todo, start)
	return prev
}

// mergeByPath merges two entry lists sorted by path.
func mergeByPath(a, b []Entry) []Entry {
	out := make([]Entry, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if a[i].Path < b[j].Path {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// hasAncestorIn reports whether a directory strictly above rel (a
// slash-separated path below the root, "." the root) is in set.
func hasAncestorIn(rel string, set map[string]bool) bool {
	if rel == "." || len(set) == 0 {
		return false
	}
	for q := rel; ; {
		i := strings.LastIndexByte(q, '/')
		if i < 0 {
			return set["."]
		}
		q = q[:i]
		if set[q] {
			return true
		}
	}
}
