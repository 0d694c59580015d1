// Package persist is talaria's durable store: sessions and their messages in
// one bbolt file, $TALARIA_HOME/state.db.
//
// Several talaria processes share that file at once (two TUIs and a
// `talaria sessions` from a third terminal), while bbolt locks the file for as
// long as it is open. A Store therefore never keeps the file open: every
// public operation opens it, runs one transaction and closes it again, waiting
// (with a short backoff) while another process holds the lock. Reads take a
// shared lock, writes an exclusive one; every write is fsynced before the
// operation returns.
//
// Layout (schema version 3; migrate.go has the history and the upgrade
// steps, which Open runs when it finds an older file):
//
//	meta      "schema_version" → "3"
//	sessions  <session id> → JSON Session, without the system prompt
//	prompts   <session id> → system prompt text (only when state is "present")
//	messages  <session id> → nested bucket: big-endian uint64 seq → JSON
//	          providers.Message, plus "token_count" when known
//	docs      big-endian uint64 doc id → where that message is (index.go)
//	index     token, 0x00, big-endian uint64 base → posting block (index.go)
//	snapshots <session id> → big-endian uint64 covered seq, then a JSON
//	          array of providers.Message: the compacted history (snapshot.go)
//	todos     <session id> → the session's todo list, opaque JSON (todos.go)
//
// There is no cwd index: LatestSession and ListSessions scan the sessions
// bucket, whose records stay small because prompts and messages live
// elsewhere.
package persist

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// ErrNotFound is returned (wrapped with the id or reference) when a session
// does not exist.
var ErrNotFound = errors.New("session not found")

// ErrNewerSchema is returned (wrapped, naming the file and both versions)
// when state.db was written by a newer talaria with a schema this one does
// not understand.
var ErrNewerSchema = errors.New("state.db has a newer schema")

// SchemaVersion is the layout version this package reads and writes.
const SchemaVersion = 3

// DefaultLockTimeout is how long an operation waits for another process to
// release state.db before it gives up.
const DefaultLockTimeout = 3 * time.Second

const (
	// attemptTimeout is the bbolt lock timeout of one open attempt; bbolt
	// polls every 50 ms, so this amounts to a single non-blocking try.
	attemptTimeout = 50 * time.Millisecond
	// minBackoff and maxBackoff bound the wait between two open attempts.
	minBackoff = time.Millisecond
	maxBackoff = 40 * time.Millisecond
	fileMode   = 0o600
)

// Bucket and key names.
const (
	bucketMeta     = "meta"
	bucketSessions = "sessions"
	bucketPrompts  = "prompts"
	bucketMessages = "messages"
	bucketIndex    = "index"
	bucketDocs     = "docs"
	bucketSnaps    = "snapshots"
	bucketTodos    = "todos"
	keyVersion     = "schema_version"
)

// Options tune a Store.
type Options struct {
	// LockTimeout is the total time an operation waits for another process
	// holding state.db; zero means DefaultLockTimeout.
	LockTimeout time.Duration
}

// Store is a handle on one state.db. It holds no open file between calls and
// is safe for concurrent use by several goroutines; several Stores (in one
// process or many) may share a path.
type Store struct {
	path        string
	lockTimeout time.Duration
	// turn (capacity 1) queues this Store's own operations in order, so its
	// goroutines do not all poll the file lock; other Stores and processes
	// are excluded by the file lock itself. A channel rather than a mutex so
	// that waiting is bounded by the lock timeout too (a Store method called
	// from an UpdateSession callback fails instead of hanging).
	turn chan struct{}

	// leakMu guards leaked and leakErr: the file this process could not
	// release after bbolt panicked on it, and the error to report for it.
	leakMu  sync.Mutex
	leaked  os.FileInfo
	leakErr error
}

// LockedError says state.db stayed locked by another process for the whole
// lock timeout.
type LockedError struct {
	Path   string
	Waited time.Duration
}

// Error implements error.
func (e *LockedError) Error() string {
	return fmt.Sprintf("%s at %s is locked by another talaria process (waited %s); "+
		"the lock is normally held for milliseconds, so that process may be stuck: "+
		"find it with `lsof %s`, or try again", filepath.Base(e.Path), e.Path,
		e.Waited.Round(time.Millisecond), e.Path)
}

// DamagedError says state.db cannot be read: it is corrupt, truncated, or not
// a talaria store at all.
type DamagedError struct {
	Path   string
	Reason string
	// Err is the underlying error, if any.
	Err error
}

// Error implements error.
func (e *DamagedError) Error() string {
	return fmt.Sprintf("%s at %s is damaged (%s); move it aside and start fresh: mv %s %s.bad",
		filepath.Base(e.Path), e.Path, e.Reason, e.Path, e.Path)
}

// Unwrap returns the underlying error.
func (e *DamagedError) Unwrap() error { return e.Err }

// Open returns a Store for the file at path. It creates the parent directory
// and the file if needed, creates or checks the schema and validates the file
// (a *DamagedError if it is unreadable, a *LockedError if another process
// holds it past the lock timeout). The file is closed again before Open
// returns.
func Open(path string, opts Options) (*Store, error) {
	if path == "" {
		return nil, errors.New("persist: empty state.db path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("state.db path %s: %w", path, err)
	}
	if opts.LockTimeout <= 0 {
		opts.LockTimeout = DefaultLockTimeout
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, fmt.Errorf("create directory for %s: %w", abs, err)
	}
	s := newStore(abs, opts.LockTimeout)
	// A read: on an existing store it checks everything without a write (a
	// no-op bbolt commit still costs two fsyncs); a new or empty file is
	// initialised by view.
	if err := s.view(func(*bolt.Tx) error { return nil }); err != nil {
		return nil, err
	}
	return s, nil
}

// newStore builds the handle without touching the file.
func newStore(path string, lockTimeout time.Duration) *Store {
	return &Store{path: path, lockTimeout: lockTimeout, turn: make(chan struct{}, 1)}
}

// Path returns the absolute path of the store's file.
func (s *Store) Path() string { return s.path }

// view runs fn in a read-only transaction. A store whose file is missing or
// empty is (re)initialised first, so fn always sees the buckets.
func (s *Store) view(fn func(*bolt.Tx) error) error {
	deadline := time.Now().Add(s.lockTimeout)
	if err := s.acquire(deadline); err != nil {
		return err
	}
	defer s.release()
	if fi, err := os.Stat(s.path); err == nil && fi.Size() > 0 {
		err := s.withDB(false, fn, deadline)
		if !errors.As(err, new(errNotReady)) {
			return err
		}
	}
	// Missing, empty or half-initialised: create the schema, then read.
	return s.withDB(true, fn, deadline)
}

// errNotReady tells view that the file lacks the schema and must be
// initialised by a write transaction first.
type errNotReady struct{}

func (errNotReady) Error() string { return "schema not initialised" }

// update runs fn in a read-write transaction after ensuring the schema; the
// transaction is committed (and fsynced) if fn returns nil.
func (s *Store) update(fn func(*bolt.Tx) error) error {
	deadline := time.Now().Add(s.lockTimeout)
	if err := s.acquire(deadline); err != nil {
		return err
	}
	defer s.release()
	return s.withDB(true, fn, deadline)
}

// acquire waits for this Store's turn until the deadline.
func (s *Store) acquire(deadline time.Time) error {
	select {
	case s.turn <- struct{}{}:
		return nil
	default:
	}
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case s.turn <- struct{}{}:
		return nil
	case <-t.C:
		return &LockedError{Path: s.path, Waited: s.lockTimeout - time.Until(deadline)}
	}
}

// release ends this Store's turn.
func (s *Store) release() { <-s.turn }

// checkSchema validates the schema in any transaction. It reports whether
// the store is ready for use at SchemaVersion; an empty bbolt file, a
// half-initialised one and an older schema are valid but not ready (a write
// transaction's ensureSchema completes or upgrades them).
func (s *Store) checkSchema(tx *bolt.Tx) (bool, error) {
	v, err := s.storedVersion(tx)
	if err != nil || v == 0 || v < SchemaVersion {
		return false, err
	}
	for _, name := range bucketsAt(SchemaVersion) {
		if tx.Bucket([]byte(name)) == nil {
			return false, nil
		}
	}
	return true, nil
}

// storedVersion returns the file's schema version, 0 for an empty file.
func (s *Store) storedVersion(tx *bolt.Tx) (int, error) {
	meta := tx.Bucket([]byte(bucketMeta))
	if meta == nil {
		var names []string
		_ = tx.ForEach(func(name []byte, _ *bolt.Bucket) error {
			names = append(names, strconv.Quote(string(name)))
			return nil
		})
		if len(names) > 0 {
			return 0, s.damaged(fmt.Sprintf("not a talaria store: it has buckets %v but no meta", names), nil)
		}
		return 0, nil
	}
	raw := meta.Get([]byte(keyVersion))
	v, err := strconv.Atoi(string(raw))
	if err != nil || v < 1 {
		return 0, s.damaged(fmt.Sprintf("bad schema version %q", raw), nil)
	}
	if v > SchemaVersion {
		return 0, &newerSchemaError{path: s.path, version: v}
	}
	return v, nil
}

// newerSchemaError is ErrNewerSchema with the details.
type newerSchemaError struct {
	path    string
	version int
}

// Error implements error.
func (e *newerSchemaError) Error() string {
	return fmt.Sprintf("%s at %s has schema version %d, newer than this talaria understands (%d): upgrade talaria",
		filepath.Base(e.path), e.path, e.version, SchemaVersion)
}

// Unwrap makes errors.Is(err, ErrNewerSchema) hold.
func (e *newerSchemaError) Unwrap() error { return ErrNewerSchema }

// ensureSchema creates whatever part of the schema is missing, or upgrades
// an older one, in a write transaction. On a ready store it only reads.
func (s *Store) ensureSchema(tx *bolt.Tx) error {
	ready, err := s.checkSchema(tx)
	if err != nil || ready {
		return err
	}
	v, err := s.storedVersion(tx)
	if err != nil {
		return err
	}
	if v > 0 && v < SchemaVersion {
		return s.migrate(tx, v, migrations())
	}
	meta, err := tx.CreateBucketIfNotExists([]byte(bucketMeta))
	if err != nil {
		return s.damaged("cannot create the meta bucket", err)
	}
	if v == 0 {
		if err := meta.Put([]byte(keyVersion), []byte(strconv.Itoa(SchemaVersion))); err != nil {
			return err
		}
	}
	if v == SchemaVersion && (tx.Bucket([]byte(bucketIndex)) == nil || tx.Bucket([]byte(bucketDocs)) == nil) {
		// A current file that lost its index: rebuild it from the
		// messages (buildIndex creates the index buckets).
		for _, name := range bucketsAt(SchemaVersion) {
			if name == bucketIndex || name == bucketDocs {
				continue
			}
			if _, err := tx.CreateBucketIfNotExists([]byte(name)); err != nil {
				return s.damaged(fmt.Sprintf("cannot create bucket %q", name), err)
			}
		}
		return s.buildIndex(tx)
	}
	for _, name := range bucketsAt(SchemaVersion) {
		if _, err := tx.CreateBucketIfNotExists([]byte(name)); err != nil {
			return s.damaged(fmt.Sprintf("cannot create bucket %q", name), err)
		}
	}
	return nil
}

// damaged builds a *DamagedError for this store.
func (s *Store) damaged(reason string, err error) error {
	return &DamagedError{Path: s.path, Reason: reason, Err: err}
}

// bucket returns a top-level bucket, or a damage error if it is missing
// (checkSchema has run, so that cannot happen on a sound file).
func (s *Store) bucket(tx *bolt.Tx, name string) (*bolt.Bucket, error) {
	b := tx.Bucket([]byte(name))
	if b == nil {
		return nil, s.damaged(fmt.Sprintf("the %s bucket is missing", name), nil)
	}
	return b, nil
}

// isBoltCorruption reports bbolt errors that mean the file is unreadable.
func isBoltCorruption(err error) bool {
	var d *DamagedError
	if errors.As(err, &d) {
		return false
	}
	return errors.Is(err, berrors.ErrInvalid) || errors.Is(err, berrors.ErrChecksum) ||
		errors.Is(err, berrors.ErrVersionMismatch) || errors.Is(err, berrors.ErrInvalidMapping) ||
		errors.Is(err, berrors.ErrIncompatibleValue)
}

// buckets returns the three data buckets, or a damage error if one is
// missing (checkSchema has run, so that cannot happen on a sound file).
func (s *Store) buckets(tx *bolt.Tx) (sessions, prompts, messages *bolt.Bucket, err error) {
	sessions = tx.Bucket([]byte(bucketSessions))
	prompts = tx.Bucket([]byte(bucketPrompts))
	messages = tx.Bucket([]byte(bucketMessages))
	if sessions == nil || prompts == nil || messages == nil {
		return nil, nil, nil, s.damaged("a bucket is missing", nil)
	}
	return sessions, prompts, messages, nil
}
