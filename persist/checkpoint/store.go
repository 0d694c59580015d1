// Package checkpoint records snapshots of a working tree and restores them,
// so that what a turn did to the files can be taken back.
//
// The store lives under $TALARIA_HOME/checkpoints and is its own
// content-addressed object store; the project's .git is never written (no
// commit, stash, index or ref), and the git binary is not needed, so a
// checkpoint works the same in a directory that is not a repository:
//
//	objects/ab/cdef…   file contents by SHA-256, deflate-compressed
//	objects/…          also the directory listings ("trees", as git's): per
//	                   directory, JSON of its entries (name, type, mode,
//	                   size, mtime, blob or symlink target, a
//	                   subdirectory's tree), so a checkpoint stores only the
//	                   listings of the directories that changed
//	manifests/<id>     one checkpoint: the root directory and its tree;
//	                   the id is their SHA-256, so an unchanged tree yields
//	                   the same checkpoint
//	cache/<project>    the per-project stat cache: path → size, mtime,
//	                   ctime, inode, mode, blob, so an unchanged file is not
//	                   read again (git's index does the same)
//
// What is tracked is what git would see: .git/ is skipped and .gitignore
// (and .git/info/exclude) is honoured; files over [MaxFileSize] are listed
// in the manifest without contents and never restored. What is not
// tracked is still recorded as there: every name in a tracked directory
// is listed, an ignored file, symlink or directory and a special file
// (FIFO, socket, device) by its type and stat only (an ignored directory
// is not read). A restore never removes or alters a path whose contents
// the checkpoint does not hold, nor one below an ignored directory.
//
//	lock               flock(2): shared while a checkpoint is taken or
//	                   restored, exclusive while the store is pruned
package checkpoint

import (
	"bytes"
	"compress/flate"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// MaxFileSize is the largest file a checkpoint stores (10 MiB).
const MaxFileSize = 10 << 20

// maxBlobRead bounds what reading one object may decompress: a file is at
// most MaxFileSize, a directory listing of a huge directory may be more.
const maxBlobRead = 64 << 20

// Store is a checkpoint store rooted at one directory. It is safe for use
// by several goroutines and processes at once: every file it writes is
// written under a temporary name and renamed into place.
type Store struct {
	dir string
	// maxSize is the size limit of a stored file.
	maxSize int64
	// flaters reuses compressors (each allocates about 1 MiB).
	flaters *sync.Pool
	// maxEntries and maxNewBytes bound one checkpoint: a tree with more
	// entries, or more new contents to store, is not checkpointed (an
	// error says so) rather than copied wholesale into the store.
	maxEntries  int
	maxNewBytes int64
	// beforeRead, when set (by tests), runs before a file is read.
	beforeRead func(abs string)
	// watch is the watcher Take uses for its root (Watch), if any.
	watch watchers
}

// Limits of one checkpoint.
const (
	// MaxEntries is the most files, symlinks and directories a tree may
	// have to be checkpointed.
	MaxEntries = 200_000
	// MaxNewBytes is the most new file contents one checkpoint stores.
	MaxNewBytes = 2 << 30
)

// Open returns the store under home ($TALARIA_HOME), creating nothing
// until the first checkpoint.
func Open(home string) *Store {
	return &Store{dir: filepath.Join(home, "checkpoints"), maxSize: MaxFileSize, flaters: &sync.Pool{},
		maxEntries: MaxEntries, maxNewBytes: MaxNewBytes}
}

// Dir returns the store's directory.
func (s *Store) Dir() string { return s.dir }

// ErrNoCheckpoint is returned (wrapped with the id) for a checkpoint that
// is not in the store.
var ErrNoCheckpoint = errors.New("checkpoint not found")

// Entry types.
const (
	TypeFile    = "f"
	TypeSymlink = "l"
	TypeDir     = "d"
	// TypeOther is a FIFO, socket or device: recorded as there, never
	// read, never restored.
	TypeOther = "o"
)

// Entry is one path of a checkpoint.
type Entry struct {
	// Path is slash-separated and relative to the checkpoint's root.
	Path string `json:"p"`
	// Type is TypeFile, TypeSymlink or TypeDir.
	Type string `json:"t"`
	// Mode is the permission bits and setuid/setgid/sticky, as fs.FileMode
	// bits (fs.ModeSetuid and so on, not 0o7000).
	Mode uint32 `json:"m,omitempty"`
	// Size and MTime (Unix nanoseconds) are as seen when it was recorded.
	Size  int64 `json:"s,omitempty"`
	MTime int64 `json:"mt,omitempty"`
	// Blob is the SHA-256 of a file's contents (hex); empty for a file over
	// the size limit, whose contents are not stored.
	Blob string `json:"b,omitempty"`
	// Target is a symlink's target, as stored in the link.
	Target string `json:"l,omitempty"`
	// TooBig marks a file over the size limit: listed, not stored.
	TooBig bool `json:"big,omitempty"`
	// Ignored marks a path .gitignore ignores: its type and stat are
	// recorded (a symlink's target too), its contents are not, and an
	// ignored directory is not read (Opaque).
	Ignored bool `json:"ign,omitempty"`
	// Opaque marks a directory whose entries are not listed (ignored, or
	// unreadable when recorded): what is below it is unknown.
	Opaque bool `json:"op,omitempty"`
}

// tracked reports an entry whose contents a checkpoint follows: not
// ignored and not a special file (a file over the size limit is tracked
// but not held, see held).
func (e *Entry) tracked() bool { return e != nil && !e.Ignored && e.Type != TypeOther }

// held reports whether a restore can bring the entry back: a stored file,
// a tracked symlink or directory.
func (e *Entry) held() bool {
	switch {
	case e == nil || !e.tracked():
		return false
	case e.Type == TypeFile:
		return e.Blob != ""
	}
	return true
}

// same reports whether two entries stand for the same content: type,
// mode and blob (or target). Size and mtime do not count.
func (e *Entry) same(o *Entry) bool {
	if e == nil || o == nil {
		return e == o
	}
	if e.Type != o.Type || e.Mode != o.Mode {
		return false
	}
	switch e.Type {
	case TypeFile:
		if e.Blob == "" || o.Blob == "" { // too big or ignored: by stat
			return e.Size == o.Size && e.MTime == o.MTime
		}
		return e.Blob == o.Blob
	case TypeSymlink:
		return e.Target == o.Target
	case TypeOther:
		return e.Size == o.Size && e.MTime == o.MTime
	}
	return true
}

// Manifest is one checkpoint: the entries of a tree, sorted by path.
type Manifest struct {
	// ID is the manifest's SHA-256 (hex, first 24 digits).
	ID string `json:"-"`
	// Root is the absolute directory the checkpoint was taken of.
	Root    string  `json:"root"`
	Entries []Entry `json:"entries"`
	// Complete is set when every name of each listed directory is an
	// entry, ignored ones included (checkpoints of this version): a path
	// that is not an entry, and not below an Opaque directory, was not
	// there. Older checkpoints list the tracked paths only.
	Complete bool `json:"complete,omitempty"`
}

// index maps paths to entries.
func (m *Manifest) index() map[string]*Entry {
	out := make(map[string]*Entry, len(m.Entries))
	for i := range m.Entries {
		out[m.Entries[i].Path] = &m.Entries[i]
	}
	return out
}

// TooBig lists the paths of the files over the size limit.
func (m *Manifest) TooBig() []string {
	var out []string
	for i := range m.Entries {
		if m.Entries[i].TooBig {
			out = append(out, m.Entries[i].Path)
		}
	}
	return out
}

// validID reports whether id can name a manifest file.
func validID(id string) bool {
	if len(id) != idLen {
		return false
	}
	_, err := hex.DecodeString(id)
	return err == nil
}

// idLen is the length of a checkpoint id in hex digits.
const idLen = 24

// blobPath is where the blob with hex hash h lives.
func (s *Store) blobPath(h string) string {
	return filepath.Join(s.dir, "objects", h[:2], h[2:])
}

// hasBlob reports whether blob h is stored.
func (s *Store) hasBlob(h string) bool {
	_, err := os.Stat(s.blobPath(h))
	return err == nil
}

// putBlob stores data under its hash h unless it is already there.
func (s *Store) putBlob(h string, data []byte) error {
	if s.hasBlob(h) {
		return nil
	}
	var buf bytes.Buffer
	buf.Grow(len(data)/2 + 64)
	zw, _ := s.flaters.Get().(*flate.Writer)
	if zw == nil {
		zw, _ = flate.NewWriter(&buf, flate.BestSpeed)
	} else {
		zw.Reset(&buf)
	}
	defer s.flaters.Put(zw)
	if _, err := zw.Write(data); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return writeAtomic(s.blobPath(h), buf.Bytes())
}

// readBlob returns the contents of blob h, checked against its hash.
func (s *Store) readBlob(h string) ([]byte, error) {
	if len(h) != 64 {
		return nil, fmt.Errorf("blob %q: not a SHA-256", h)
	}
	f, err := os.Open(s.blobPath(h))
	if err != nil {
		return nil, fmt.Errorf("blob %s is missing from the checkpoint store: %w", h[:12], err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(flate.NewReader(f), maxBlobRead))
	if err != nil {
		return nil, fmt.Errorf("blob %s is unreadable: %w", h[:12], err)
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != h {
		return nil, fmt.Errorf("blob %s is damaged (its contents do not match its hash)", h[:12])
	}
	return data, nil
}

// writeAtomic writes data to path through a temporary file in the same
// directory and a rename, creating the directory as needed.
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp := filepath.Join(dir, "."+filepath.Base(path)+".tmp-"+randHex())
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// randHex returns 8 random hex digits.
func randHex() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// projectKey names a project's stat cache by its root.
func projectKey(root string) string {
	sum := sha256.Sum256([]byte(root))
	return hex.EncodeToString(sum[:8])
}

// relSlash converts a path under root to the manifest's form.
func relSlash(root, p string) string {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(rel)
}

// within reports whether p is dir or below it.
func within(dir, p string) bool {
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator))
}

// ErrBusy is returned (wrapped) when the store's lock could not be taken
// before the context ended: another process is pruning it, or taking or
// restoring a checkpoint while a prune waits.
var ErrBusy = errors.New("the checkpoint store is busy")
