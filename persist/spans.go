package persist

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"

	bolt "go.etcd.io/bbolt"
)

// bucketSpans holds the per-turn span logs behind the timeline:
//
//	spans  <session id> → nested bucket: big-endian uint32 turn → JSON
//
// It is created on the first save, so stores written before it existed
// need no migration; a store without it simply has no span logs.
const bucketSpans = "spans"

// maxSpanLog caps one turn's stored span log (a turn of thousands of calls
// stays well under it).
const maxSpanLog = 8 << 20

// SaveSpans stores the span log of one turn of a session, replacing an
// earlier one of the same turn. The log is opaque JSON to the store (the
// loop owns its type). ErrNotFound (wrapped) if the session does not exist.
func (s *Store) SaveSpans(id string, turn int, raw json.RawMessage) error {
	if turn <= 0 || turn > math.MaxUint32 {
		return fmt.Errorf("save the span log of session %s: turn %d out of range", id, turn)
	}
	if !json.Valid(raw) {
		return fmt.Errorf("save the span log of session %s turn %d: not valid JSON", id, turn)
	}
	if len(raw) > maxSpanLog {
		return fmt.Errorf("save the span log of session %s turn %d: %d bytes, over the %d-byte cap", id, turn, len(raw), maxSpanLog)
	}
	return s.update(func(tx *bolt.Tx) error {
		if _, err := s.getSession(tx, id, false); err != nil {
			return err
		}
		top, err := tx.CreateBucketIfNotExists([]byte(bucketSpans))
		if err != nil {
			return err
		}
		b, err := top.CreateBucketIfNotExists([]byte(id))
		if err != nil {
			return err
		}
		return b.Put(turnKey(turn), raw)
	})
}

// Spans returns the span log of one turn as stored by SaveSpans, or nil
// when that turn has none. Turn 0 means the session's latest logged turn;
// the turn returned says which one it was.
func (s *Store) Spans(id string, turn int) (json.RawMessage, int, error) {
	var out json.RawMessage
	got := 0
	err := s.view(func(tx *bolt.Tx) error {
		if _, err := s.getSession(tx, id, false); err != nil {
			return err
		}
		b := sessionSpans(tx, id)
		if b == nil {
			return nil
		}
		var k, v []byte
		if turn > 0 {
			k, v = turnKey(turn), b.Get(turnKey(turn))
		} else {
			k, v = b.Cursor().Last()
		}
		if v != nil && len(k) == 4 {
			out, got = bytes.Clone(v), int(binary.BigEndian.Uint32(k))
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	if out != nil && !json.Valid(out) {
		return nil, 0, s.damaged(fmt.Sprintf("the span log of session %s turn %d is unreadable", id, got), nil)
	}
	return out, got, nil
}

// SpanTurns lists the turns of a session that have a span log, in order.
func (s *Store) SpanTurns(id string) ([]int, error) {
	var out []int
	err := s.view(func(tx *bolt.Tx) error {
		if _, err := s.getSession(tx, id, false); err != nil {
			return err
		}
		b := sessionSpans(tx, id)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, _ []byte) error {
			if len(k) == 4 {
				out = append(out, int(binary.BigEndian.Uint32(k)))
			}
			return nil
		})
	})
	return out, err
}

// deleteSpans removes a session's span logs (DeleteSession calls it).
func deleteSpans(tx *bolt.Tx, id string) error {
	top := tx.Bucket([]byte(bucketSpans))
	if top == nil || top.Bucket([]byte(id)) == nil {
		return nil
	}
	return top.DeleteBucket([]byte(id))
}

func sessionSpans(tx *bolt.Tx, id string) *bolt.Bucket {
	top := tx.Bucket([]byte(bucketSpans))
	if top == nil {
		return nil
	}
	return top.Bucket([]byte(id))
}

func turnKey(turn int) []byte {
	k := make([]byte, 4)
	binary.BigEndian.PutUint32(k, uint32(turn))
	return k
}
