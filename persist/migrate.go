package persist

import (
	"cmp"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"

	bolt "go.etcd.io/bbolt"

	"talaria/providers"
)

// migration is one forward step of the schema: run turns a store at
// version to-1 into one at version to. Steps run in order, all in the one
// write transaction that also records the new version, so a failure (or a
// kill) leaves the file at its old version, untouched.
type migration struct {
	to   int
	what string
	run  func(s *Store, tx *bolt.Tx) error
}

// migrations lists every step, oldest first; the last one's to is
// SchemaVersion.
//
// Version history:
//
//	1  sessions, prompts and messages buckets.
//	2  the full-text index (buckets index and docs, see index.go). Session
//	   records gained git_root, git_branch and estimated_cost_usd, and stored
//	   messages token_count; those are JSON fields that older records simply
//	   lack, so only the index needs building.
//	3  compaction snapshots and todo lists (buckets snapshots and todos,
//	   see snapshot.go and todos.go); both start empty.
func migrations() []migration {
	return []migration{
		{to: 2, what: "build the full-text search index", run: (*Store).buildIndex},
		{to: 3, what: "create the snapshot and todo buckets", run: (*Store).createV3Buckets},
	}
}

// bucketsAt lists the top-level buckets of a schema version besides meta.
func bucketsAt(version int) []string {
	names := []string{bucketSessions, bucketPrompts, bucketMessages}
	if version >= 2 {
		names = append(names, bucketIndex, bucketDocs)
	}
	if version >= 3 {
		names = append(names, bucketSnaps, bucketTodos)
	}
	return names
}

// createV3Buckets is the step to version 3: the buckets it adds start
// empty (no session has a snapshot or todos yet).
func (s *Store) createV3Buckets(tx *bolt.Tx) error {
	for _, name := range []string{bucketSnaps, bucketTodos} {
		if _, err := tx.CreateBucketIfNotExists([]byte(name)); err != nil {
			return s.damaged(fmt.Sprintf("cannot create bucket %q", name), err)
		}
	}
	return nil
}

// migrate brings a store at version from up to SchemaVersion with steps.
func (s *Store) migrate(tx *bolt.Tx, from int, steps []migration) error {
	meta := tx.Bucket([]byte(bucketMeta))
	// A version-1 file may lack a bucket (v1 created them lazily).
	for _, name := range bucketsAt(from) {
		if _, err := tx.CreateBucketIfNotExists([]byte(name)); err != nil {
			return s.damaged(fmt.Sprintf("cannot create bucket %q", name), err)
		}
	}
	v := from
	for _, step := range steps {
		if step.to <= v {
			continue
		}
		if step.to != v+1 {
			return fmt.Errorf("persist: no migration from schema version %d to %d", v, v+1)
		}
		if err := step.run(s, tx); err != nil {
			return &MigrationError{Path: s.path, From: v, To: step.to, Step: step.what, Err: err}
		}
		if err := meta.Put([]byte(keyVersion), []byte(strconv.Itoa(step.to))); err != nil {
			return err
		}
		v = step.to
	}
	if v != SchemaVersion {
		return fmt.Errorf("persist: no migration from schema version %d to %d", v, SchemaVersion)
	}
	return nil
}

// MigrationError says state.db could not be upgraded to this talaria's
// schema; the file was left as it was.
type MigrationError struct {
	Path     string
	From, To int
	Step     string
	Err      error
}

// Error implements error.
func (e *MigrationError) Error() string {
	return fmt.Sprintf("%s at %s: upgrading the schema from version %d to %d (%s) failed, the file is unchanged: %v",
		filepath.Base(e.Path), e.Path, e.From, e.To, e.Step, e.Err)
}

// Unwrap returns the underlying error.
func (e *MigrationError) Unwrap() error { return e.Err }

// reindexPostings bounds the postings buildIndex collects in memory (8
// bytes each, plus the map) before it writes them out. Writing each token's
// list once, in key order, is much cheaper than appending to it many times
// in one large transaction.
const reindexPostings = 8 << 20

// buildIndex (re)creates the full-text index over every stored message of
// every existing session. Documents are numbered in message time order
// (then session, then seq), so that "newest first" holds for old messages
// too.
func (s *Store) buildIndex(tx *bolt.Tx) error {
	for _, name := range []string{bucketIndex, bucketDocs} {
		if tx.Bucket([]byte(name)) != nil {
			if err := tx.DeleteBucket([]byte(name)); err != nil {
				return err
			}
		}
		if _, err := tx.CreateBucket([]byte(name)); err != nil {
			return err
		}
	}
	sessions, _, messages, err := s.buckets(tx)
	if err != nil {
		return err
	}
	type loc struct {
		ts      int64
		session string
		seq     uint64
	}
	var all []loc
	err = messages.ForEachBucket(func(sid []byte) error {
		if sessions.Get(sid) == nil {
			return nil // orphaned messages: nothing can show them
		}
		return messages.Bucket(sid).ForEach(func(k, v []byte) error {
			var m struct {
				Timestamp int64 `json:"timestamp"`
			}
			if len(k) != docKeySize || json.Unmarshal(v, &m) != nil {
				return s.damaged(fmt.Sprintf("message %x of session %s is unreadable", k, sid), nil)
			}
			all = append(all, loc{m.Timestamp, string(sid), seqFromKey(k)})
			return nil
		})
	})
	if err != nil {
		return err
	}
	sort.Slice(all, func(i, j int) bool {
		a, b := all[i], all[j]
		return cmp.Or(cmp.Compare(a.ts, b.ts), cmp.Compare(a.session, b.session), cmp.Compare(a.seq, b.seq)) < 0
	})
	w, err := s.newIndexWriter(tx)
	if err != nil {
		return err
	}
	// Keys arrive mostly in order: pack the pages.
	w.idx.FillPercent = 0.9
	// Decode and tokenize a chunk at a time on every CPU; the bbolt reads
	// and index writes stay on this goroutine (a transaction is not safe
	// for concurrent use, and its writes may remap the file, so the chunk's
	// values are copied first).
	const chunk = 2048
	raws := make([][]byte, chunk)
	toks := make([]map[string]struct{}, chunk)
	for lo := 0; lo < len(all); lo += chunk {
		part := all[lo:min(lo+chunk, len(all))]
		for i, l := range part {
			raws[i] = append(raws[i][:0], messages.Bucket([]byte(l.session)).Get(seqKey(l.seq))...)
		}
		err := parallelChunks(len(part), func(a, b int) error {
			for i := a; i < b; i++ {
				var m providers.Message
				if err := json.Unmarshal(raws[i], &m); err != nil {
					return s.damaged(fmt.Sprintf("message %d of session %s is unreadable", part[i].seq, part[i].session), err)
				}
				toks[i] = distinctTokens(searchText(&m))
			}
			return nil
		})
		if err != nil {
			return err
		}
		for i, l := range part {
			if err := w.add(l.session, l.seq, toks[i]); err != nil {
				return err
			}
		}
		if w.pending >= reindexPostings {
			if err := w.flush(); err != nil {
				return err
			}
		}
	}
	return w.flush()
}
