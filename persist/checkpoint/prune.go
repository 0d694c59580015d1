package checkpoint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"time"
)

// Session is one session's use of the store, as Prune weighs it.
type Session struct {
	ID string
	// Checkpoints are the checkpoint ids its records name.
	Checkpoints []string
	// Last is when it last recorded one.
	Last time.Time
	// Live is set for a session a live process runs: it may still rewind
	// to any of its checkpoints, so they are never pruned.
	Live bool
}

// Limits bound the store; a zero field sets no bound.
type Limits struct {
	// KeepSessions is how many sessions keep their checkpoints, the most
	// recent first (live ones always do, and count, even before their
	// first checkpoint: a session opening is one of the newest).
	KeepSessions int
	// MaxBytes is the most the store may hold; the oldest sessions go
	// first until it fits (live ones never do).
	MaxBytes int64
}

// PruneReport says what a prune did (or, dry, would do).
type PruneReport struct {
	// BytesBefore and BytesAfter are the store's size on disk.
	BytesBefore int64 `json:"bytes_before"`
	BytesAfter  int64 `json:"bytes_after"`
	// Pruned are the sessions whose checkpoints were removed: their files
	// can no longer be rewound (their conversation still can).
	Pruned []string `json:"pruned"`
	// Kept are the sessions whose checkpoints stay, live ones included.
	Kept []string `json:"kept"`
	// Live are the kept sessions a live process runs.
	Live []string `json:"live"`
	// Notes say what a prune could not do (live sessions over the limit).
	Notes []string `json:"notes,omitempty"`
	// Manifests and Objects count the files removed.
	Manifests int `json:"manifests_removed"`
	Objects   int `json:"objects_removed"`
	// Dry is set when nothing was removed on purpose.
	Dry bool `json:"dry_run,omitempty"`
}

// orphanGrace: a checkpoint no session names is kept this long (it may be
// about to be recorded by a process that does not hold the store's lock
// across taking and recording it).
const orphanGrace = 10 * time.Minute

// Hold takes the store's shared lock until release: what is taken and
// recorded under it cannot be pruned in between. ctx bounds the wait.
func (s *Store) Hold(ctx context.Context) (release func(), err error) {
	return s.lock(ctx, false)
}

// Prune removes the checkpoints of the sessions outside limits, and
// everything no kept session (nor a recent unrecorded checkpoint) needs:
// sessions are kept live ones first, then the most recent, while they fit
// KeepSessions and MaxBytes; the rest are pruned whole. A live session is
// never pruned: when live sessions alone exceed a limit, a note says so.
// The store's exclusive lock is taken first (ErrBusy when ctx ends before
// it is free). The stat caches are cleaned before any object goes, so an
// interrupted prune leaves a consistent store; ctx bounds the whole.
func (s *Store) Prune(ctx context.Context, sessions []Session, lim Limits, dry bool) (*PruneReport, error) {
	rep := &PruneReport{Pruned: []string{}, Kept: []string{}, Live: []string{}, Dry: dry}
	if _, err := os.Stat(s.dir); errors.Is(err, fs.ErrNotExist) {
		return rep, nil
	}
	unlock, err := s.lock(ctx, true)
	if err != nil {
		return nil, fmt.Errorf("checkpoint prune: %w", err)
	}
	defer unlock()
	if rep.BytesBefore, err = dirBytes(s.dir); err != nil {
		return nil, fmt.Errorf("checkpoint prune: %w", err)
	}
	// Only what is still in the store counts.
	var present []Session
	for _, ss := range sessions {
		ids := slices.DeleteFunc(slices.Clone(ss.Checkpoints), func(id string) bool { return !s.hasManifest(id) })
		if len(ids) > 0 || ss.Live { // a live one counts, checkpoints or not yet
			ss.Checkpoints = ids
			present = append(present, ss)
		}
	}
	// (sort, not slices: see sortByPath.)
	sort.SliceStable(present, func(i, j int) bool {
		if a, b := present[i], present[j]; a.Live != b.Live {
			return a.Live
		}
		return present[i].Last.After(present[j].Last)
	})
	m := &marker{s: s, objs: map[string]int64{}, trees: map[string]bool{}, manifests: map[string]bool{}}
	// Unrecorded recent checkpoints are roots.
	orphans, err := s.recentOrphans(present)
	if err != nil {
		return nil, fmt.Errorf("checkpoint prune: %w", err)
	}
	for _, id := range orphans {
		if err := m.mark(ctx, id, nil); err != nil {
			return nil, err
		}
	}
	var liveBytes int64
	for i, ss := range present {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("checkpoint prune: %w", err)
		}
		if !ss.Live {
			fits := (lim.KeepSessions <= 0 || len(rep.Kept) < lim.KeepSessions)
			if fits && lim.MaxBytes > 0 {
				add, err := m.cost(ctx, ss.Checkpoints)
				if err != nil {
					return nil, err
				}
				fits = m.total+add <= lim.MaxBytes
			}
			if !fits {
				for _, rest := range present[i:] {
					rep.Pruned = append(rep.Pruned, rest.ID)
				}
				break
			}
		}
		for _, id := range ss.Checkpoints {
			if err := m.mark(ctx, id, nil); err != nil {
				return nil, err
			}
		}
		rep.Kept = append(rep.Kept, ss.ID)
		if ss.Live {
			rep.Live = append(rep.Live, ss.ID)
			liveBytes = m.total
		}
	}
	if n := len(rep.Live); n > 0 {
		if lim.KeepSessions > 0 && n > lim.KeepSessions {
			rep.Notes = append(rep.Notes, fmt.Sprintf("%d live sessions keep their checkpoints, more than checkpoints.keep_sessions (%d): they may still rewind", n, lim.KeepSessions))
		}
		if lim.MaxBytes > 0 && liveBytes > lim.MaxBytes {
			rep.Notes = append(rep.Notes, fmt.Sprintf("the checkpoints of %d live session(s) take %s, more than checkpoints.max_bytes (%s): kept, they may still rewind", n, Bytes(liveBytes), Bytes(lim.MaxBytes)))
		}
	}
	if dry {
		rep.BytesAfter = rep.BytesBefore - s.unmarkedBytes(m)
		return rep, nil
	}
	if err := s.sweep(ctx, m, rep); err != nil {
		return rep, err
	}
	if rep.BytesAfter, err = dirBytes(s.dir); err != nil {
		return rep, fmt.Errorf("checkpoint prune: %w", err)
	}
	return rep, nil
}

// marker collects what kept checkpoints reach: objects (with their size
// on disk), trees, manifests.
type marker struct {
	s         *Store
	objs      map[string]int64
	trees     map[string]bool
	manifests map[string]bool
	total     int64
}

// cost returns how many bytes marking ids would add, marking nothing.
func (m *marker) cost(ctx context.Context, ids []string) (int64, error) {
	tmp := &marker{s: m.s, objs: map[string]int64{}, trees: map[string]bool{}, manifests: map[string]bool{}}
	for _, id := range ids {
		if err := tmp.mark(ctx, id, m); err != nil {
			return 0, err
		}
	}
	return tmp.total, nil
}

// mark marks manifest id and what it reaches, not counting what base
// (when set) has marked already.
func (m *marker) mark(ctx context.Context, id string, base *marker) error {
	if m.manifests[id] || (base != nil && base.manifests[id]) {
		return nil
	}
	p := filepath.Join(m.s.dir, "manifests", id)
	st, err := os.Lstat(p)
	if err != nil {
		return nil // gone: nothing to keep
	}
	m.manifests[id] = true
	m.total += st.Size()
	raw, err := os.ReadFile(p)
	if err != nil {
		return fmt.Errorf("checkpoint prune: %w", err)
	}
	var mf manifestFile
	if json.Unmarshal(raw, &mf) != nil || len(mf.Tree) != 64 {
		return nil // unreadable: it restores nothing either
	}
	return m.tree(ctx, mf.Tree, base, 0)
}

// tree marks tree h and everything below it.
func (m *marker) tree(ctx context.Context, h string, base *marker, depth int) error {
	if m.trees[h] || (base != nil && base.trees[h]) || depth > maxTreeDepth {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("checkpoint prune: %w", err)
	}
	m.trees[h] = true
	m.object(h, base)
	raw, err := m.s.readBlob(h)
	if err != nil {
		return nil // missing or damaged: nothing below to keep
	}
	var list []treeEntry
	if json.Unmarshal(raw, &list) != nil {
		return nil
	}
	for _, t := range list {
		if t.Blob != "" {
			m.object(t.Blob, base)
		}
		if t.Type == TypeDir && len(t.Tree) == 64 {
			if err := m.tree(ctx, t.Tree, base, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// object marks object h with its size on disk.
func (m *marker) object(h string, base *marker) {
	if len(h) != 64 {
		return
	}
	if _, ok := m.objs[h]; ok {
		return
	}
	if base != nil {
		if _, ok := base.objs[h]; ok {
			return
		}
	}
	var size int64
	if st, err := os.Lstat(m.s.blobPath(h)); err == nil {
		size = st.Size()
	}
	m.objs[h] = size
	m.total += size
}

// hasManifest reports whether checkpoint id is in the store.
func (s *Store) hasManifest(id string) bool {
	if !validID(id) {
		return false
	}
	_, err := os.Lstat(filepath.Join(s.dir, "manifests", id))
	return err == nil
}

// recentOrphans lists the manifests no session names, written within
// orphanGrace.
func (s *Store) recentOrphans(sessions []Session) ([]string, error) {
	named := map[string]bool{}
	for _, ss := range sessions {
		for _, id := range ss.Checkpoints {
			named[id] = true
		}
	}
	ents, err := os.ReadDir(filepath.Join(s.dir, "manifests"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	limit := time.Now().Add(-orphanGrace)
	var out []string
	for _, e := range ents {
		if named[e.Name()] || !validID(e.Name()) {
			continue
		}
		if info, err := e.Info(); err == nil && info.ModTime().After(limit) {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

// sweep removes what m did not mark: the stat caches' entries of objects
// that go (first: a cache must never name a missing object), then the
// manifests, then the objects.
func (s *Store) sweep(ctx context.Context, m *marker, rep *PruneReport) error {
	gone := func(h string) bool { _, ok := m.objs[h]; return !ok }
	caches, _ := os.ReadDir(filepath.Join(s.dir, "cache"))
	for _, e := range caches {
		p := filepath.Join(s.dir, "cache", e.Name())
		c := s.loadCacheFile(p)
		n := len(c)
		for k, v := range c {
			if gone(v.Blob) {
				delete(c, k)
			}
		}
		if len(c) == n {
			continue
		}
		if err := s.saveCacheFile(p, c); err != nil {
			return fmt.Errorf("checkpoint prune: cleaning a stat cache: %w", err)
		}
	}
	manifests, _ := os.ReadDir(filepath.Join(s.dir, "manifests"))
	for _, e := range manifests {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("checkpoint prune: %w", err)
		}
		if m.manifests[e.Name()] || (!validID(e.Name()) && !stale(e)) {
			continue
		}
		if os.Remove(filepath.Join(s.dir, "manifests", e.Name())) == nil {
			rep.Manifests++
		}
	}
	return s.eachObject(func(dir, name string, e fs.DirEntry) error {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("checkpoint prune: %w", err)
		}
		h := filepath.Base(dir) + name
		if len(h) == 64 && !gone(h) {
			return nil
		}
		if len(h) != 64 && !stale(e) { // a temporary file being written
			return nil
		}
		if os.Remove(filepath.Join(dir, name)) == nil {
			rep.Objects++
		}
		return nil
	}, true)
}

// stale reports a file older than orphanGrace.
func stale(e fs.DirEntry) bool {
	info, err := e.Info()
	return err == nil && info.ModTime().Before(time.Now().Add(-orphanGrace))
}

// unmarkedBytes is what a sweep would free, about.
func (s *Store) unmarkedBytes(m *marker) int64 {
	var n int64
	_ = s.eachObject(func(dir, name string, e fs.DirEntry) error {
		if _, ok := m.objs[filepath.Base(dir)+name]; !ok {
			if info, err := e.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	}, false)
	manifests, _ := os.ReadDir(filepath.Join(s.dir, "manifests"))
	for _, e := range manifests {
		if !m.manifests[e.Name()] {
			if info, err := e.Info(); err == nil {
				n += info.Size()
			}
		}
	}
	return n
}

// eachObject calls fn for every file under objects/; with tidy, a fan-out
// directory left empty is removed.
func (s *Store) eachObject(fn func(dir, name string, e fs.DirEntry) error, tidy bool) error {
	top := filepath.Join(s.dir, "objects")
	fans, err := os.ReadDir(top)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, f := range fans {
		if !f.IsDir() || len(f.Name()) != 2 {
			continue
		}
		dir := filepath.Join(top, f.Name())
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if !e.Type().IsRegular() {
				continue
			}
			if err := fn(dir, e.Name(), e); err != nil {
				return err
			}
		}
		if tidy {
			_ = os.Remove(dir) // only when empty
		}
	}
	return nil
}

// dirBytes sums the sizes of the regular files below dir.
func dirBytes(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n, err
}

// Bytes writes a byte count for people: 512 B, 3.2 MiB, 1.0 GiB.
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for q := n / unit; q >= unit && exp < 4; q /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}
