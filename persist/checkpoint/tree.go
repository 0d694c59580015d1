package checkpoint

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// treeEntry is one entry of a stored directory listing: an Entry named by
// its base name, a directory with the hash of its own listing.
type treeEntry struct {
	Name   string `json:"n"`
	Type   string `json:"t"`
	Mode   uint32 `json:"m,omitempty"`
	Size   int64  `json:"s,omitempty"`
	MTime  int64  `json:"mt,omitempty"`
	Blob   string `json:"b,omitempty"`
	Target string `json:"l,omitempty"`
	TooBig bool   `json:"big,omitempty"`
	// Ignored and Opaque are Entry's.
	Ignored bool   `json:"ign,omitempty"`
	Opaque  bool   `json:"op,omitempty"`
	Tree    string `json:"tr,omitempty"`
}

// manifestFile is what manifests/<id> holds.
type manifestFile struct {
	Root string `json:"root"`
	Tree string `json:"tree"`
	// V is the format: 0 lists the tracked paths only, completeVersion
	// every name (Manifest.Complete).
	V int `json:"v,omitempty"`
}

// completeVersion is the manifest format that lists every name.
const completeVersion = 2

// saveManifest stores m's directory listings (those not stored yet) and
// the manifest naming the root's, sets m.ID and returns the hash of every
// directory's listing ("." for the root). With prev (the hashes of an
// earlier save), a directory not in changed keeps its hash from prev, so
// that only the listings of changed directories and of their parents
// (which the caller puts in changed) are built again.
func (s *Store) saveManifest(m *Manifest, prev map[string]string, changed map[string]bool) (map[string]string, error) {
	build := func(dir string) bool { return prev == nil || changed[dir] || prev[dir] == "" }
	children := map[string][]*Entry{} // parent directory → entries
	dirs := []string{"."}
	for i := range m.Entries {
		e := &m.Entries[i]
		if parent := path.Dir(e.Path); build(parent) {
			children[parent] = append(children[parent], e)
		}
		if e.Type == TypeDir {
			dirs = append(dirs, e.Path)
		}
	}
	// Deepest first, so a directory's listing is stored before its
	// parent's names it.
	depth := func(d string) int {
		if d == "." {
			return -1
		}
		return strings.Count(d, "/")
	}
	slices.SortFunc(dirs, func(a, b string) int { return depth(b) - depth(a) })
	trees := make(map[string]string, len(dirs))
	for _, d := range dirs {
		if !build(d) {
			trees[d] = prev[d]
			continue
		}
		kids := children[d]
		list := make([]treeEntry, len(kids))
		for i, e := range kids {
			list[i] = treeEntry{Name: path.Base(e.Path), Type: e.Type, Mode: e.Mode, Size: e.Size, MTime: e.MTime,
				Blob: e.Blob, Target: e.Target, TooBig: e.TooBig, Ignored: e.Ignored, Opaque: e.Opaque}
			if e.Type == TypeDir {
				list[i].Tree = trees[e.Path]
			}
		}
		sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
		raw, err := json.Marshal(list)
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(raw)
		h := hex.EncodeToString(sum[:])
		if err := s.putBlob(h, raw); err != nil {
			return nil, err
		}
		trees[d] = h
	}
	mf := manifestFile{Root: m.Root, Tree: trees["."]}
	if m.Complete {
		mf.V = completeVersion
	}
	raw, err := json.Marshal(mf)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(raw)
	m.ID = hex.EncodeToString(sum[:])[:idLen]
	p := filepath.Join(s.dir, "manifests", m.ID)
	if _, err := os.Stat(p); err == nil {
		return trees, nil
	}
	return trees, writeAtomic(p, raw)
}

// Load reads checkpoint id.
func (s *Store) Load(id string) (*Manifest, error) {
	if !validID(id) {
		return nil, fmt.Errorf("%w: %q", ErrNoCheckpoint, id)
	}
	raw, err := os.ReadFile(filepath.Join(s.dir, "manifests", id))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", ErrNoCheckpoint, id)
	}
	if err != nil {
		return nil, err
	}
	var mf manifestFile
	if err := json.Unmarshal(raw, &mf); err != nil || mf.Root == "" {
		return nil, fmt.Errorf("checkpoint %s is unreadable: %v", id, err)
	}
	m := &Manifest{ID: id, Root: mf.Root, Complete: mf.V >= completeVersion}
	if err := s.loadTree(m, "", mf.Tree, 0); err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", id, err)
	}
	sortByPath(m.Entries)
	return m, nil
}

// maxTreeDepth bounds the nesting a stored tree may claim.
const maxTreeDepth = 512

// loadTree appends the entries of tree h, found at prefix, to m.
func (s *Store) loadTree(m *Manifest, prefix, h string, depth int) error {
	if depth > maxTreeDepth {
		return errors.New("directories nested too deep")
	}
	raw, err := s.readBlob(h)
	if err != nil {
		return err
	}
	var list []treeEntry
	if err := json.Unmarshal(raw, &list); err != nil {
		return fmt.Errorf("directory listing %s is unreadable: %w", h[:12], err)
	}
	for _, t := range list {
		if t.Name == "" || t.Name == "." || t.Name == ".." || strings.Contains(t.Name, "/") {
			return fmt.Errorf("directory listing %s names %q", h[:12], t.Name)
		}
		p := t.Name
		if prefix != "" {
			p = prefix + "/" + t.Name
		}
		m.Entries = append(m.Entries, Entry{Path: p, Type: t.Type, Mode: t.Mode, Size: t.Size, MTime: t.MTime,
			Blob: t.Blob, Target: t.Target, TooBig: t.TooBig, Ignored: t.Ignored, Opaque: t.Opaque})
		if t.Type == TypeDir {
			if err := s.loadTree(m, p, t.Tree, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// sortByPath orders a manifest's entries by path. (sort.Slice, not
// slices.SortFunc: the generic sort is compiled again for each struct
// element type, ~25 KB of binary each.)
func sortByPath(es []Entry) {
	sort.Slice(es, func(i, j int) bool { return es[i].Path < es[j].Path })
}
