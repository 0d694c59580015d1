package persist

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// forkSuffix marks a fork's derived title, so that `talaria -r TITLE`
// and the session list tell it from the original.
const forkSuffix = " (fork)"

// ForkSession copies session id into a new session and returns the new
// record: the record itself (a new id, ParentID id, title TITLE or, when
// title is empty, the original's with " (fork)" after it), the system
// prompt, the whole message log with the same sequence numbers and turns,
// the compaction snapshot, the todos, the checkpoint and rewind records
// and the span logs. Everything is written in one transaction, so rewind,
// /timeline, export and resume see in the fork what they saw in the
// original up to now; the working-tree checkpoints themselves are shared
// (the records name them, which also keeps them from being pruned). The
// fork's messages are indexed for search. The original is not changed.
// The new session is not leased: open it as any session to continue it.
// ErrNotFound (wrapped) if id does not exist.
func (s *Store) ForkSession(id, title string) (*Session, error) {
	src, err := s.GetSession(id)
	if err != nil {
		return nil, err
	}
	// Decode and tokenize outside the write lock, as AppendEntries does.
	entries, err := s.Entries(id)
	if err != nil {
		return nil, err
	}
	tokens := make([]map[string]struct{}, len(entries))
	for i := range entries {
		tokens[i] = distinctTokens(searchText(&entries[i].Message))
	}
	title = strings.Join(strings.Fields(title), " ")
	if title == "" {
		title = forkTitle(src.Title)
	}
	rec := *src
	rec.ID, rec.ParentID, rec.Title, rec.Busy = "", id, title, nil
	rec.CreatedAt, rec.EndedAt, rec.EndReason = time.Time{}, nil, ""
	err = s.createSession(&rec, func(tx *bolt.Tx, newID string) error {
		last, err := s.lastSeq(tx, id)
		if err != nil {
			return err
		}
		if n := len(entries); (n == 0 && last != 0) || (n > 0 && entries[n-1].Seq != last) {
			return fmt.Errorf("fork session %s: it changed while it was being copied; try again", id)
		}
		return s.copySessionData(tx, id, newID, entries, tokens)
	})
	if err != nil {
		return nil, err
	}
	return &rec, nil
}

// forkTitle is the title a fork of a session titled t gets.
func forkTitle(t string) string {
	if t == "" {
		return strings.TrimSpace(forkSuffix)
	}
	if strings.HasSuffix(t, forkSuffix) {
		return t
	}
	return t + forkSuffix
}

// copySessionData copies the message log (indexing each message under
// to), and the per-session values and nested buckets, from session from
// to session to, inside a write transaction.
func (s *Store) copySessionData(tx *bolt.Tx, from, to string, entries []Entry, tokens []map[string]struct{}) error {
	_, _, messages, err := s.buckets(tx)
	if err != nil {
		return err
	}
	if src := messages.Bucket([]byte(from)); src != nil {
		dst, err := messages.CreateBucket([]byte(to))
		if err != nil {
			return err
		}
		dst.FillPercent = messagesFillPercent
		w, err := s.newIndexWriter(tx)
		if err != nil {
			return err
		}
		for i := range entries {
			raw := src.Get(seqKey(entries[i].Seq))
			if raw == nil {
				return s.damaged(fmt.Sprintf("message %d of session %s is missing", entries[i].Seq, from), nil)
			}
			if err := dst.Put(seqKey(entries[i].Seq), bytes.Clone(raw)); err != nil {
				return err
			}
			if err := w.add(to, entries[i].Seq, tokens[i]); err != nil {
				return err
			}
		}
		if err := w.flush(); err != nil {
			return err
		}
		if err := dst.SetSequence(src.Sequence()); err != nil {
			return err
		}
	}
	for _, name := range []string{bucketSnaps, bucketTodos} {
		b, err := s.bucket(tx, name)
		if err != nil {
			return err
		}
		if v := b.Get([]byte(from)); v != nil {
			if err := b.Put([]byte(to), bytes.Clone(v)); err != nil {
				return err
			}
		}
	}
	for _, name := range []string{bucketCheckpoints, bucketRewinds, bucketSpans} {
		if err := copyNested(tx, name, from, to); err != nil {
			return err
		}
	}
	return nil
}

// copyNested copies the nested bucket from of top-level bucket name to a
// new nested bucket to, with its sequence (so appended records go on
// numbering after the copied ones). Nothing to copy is not an error.
func copyNested(tx *bolt.Tx, name, from, to string) error {
	top := tx.Bucket([]byte(name))
	if top == nil || top.Bucket([]byte(from)) == nil {
		return nil
	}
	src := top.Bucket([]byte(from))
	dst, err := top.CreateBucket([]byte(to))
	if err != nil {
		return err
	}
	if err := src.ForEach(func(k, v []byte) error {
		if v == nil {
			return nil // a nested bucket: records are values
		}
		return dst.Put(bytes.Clone(k), bytes.Clone(v))
	}); err != nil {
		return err
	}
	return dst.SetSequence(src.Sequence())
}
