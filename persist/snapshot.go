package persist

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"talaria/providers"
)

// snapHeaderSize is the size of a snapshot value's header: the big-endian
// uint64 sequence number of the last stored message the snapshot covers.
// The JSON array of messages follows it. The count sits in front, outside
// the JSON, so that ResumeMessages can find where the uncovered messages
// start without decoding the snapshot inside the transaction.
const snapHeaderSize = 8

// SaveSnapshot stores msgs, the session's compacted history, as its
// compaction snapshot, replacing any earlier one. The snapshot covers the
// messages stored so far: the number of messages is read in the same write
// transaction that stores it, so a message appended concurrently is either
// covered or comes after the snapshot, never lost or doubled. The caller
// must therefore have appended every message that msgs summarises before
// calling it.
//
// The full message log is untouched: Messages, Entries, export and search
// still see every message; ResumeMessages uses the snapshot. Internal flags
// are not stored. Saving a snapshot is not activity: UpdatedAt is kept.
// ErrNotFound (wrapped) if the session does not exist.
func (s *Store) SaveSnapshot(id string, msgs []providers.Message) error {
	if msgs == nil {
		msgs = []providers.Message{}
	}
	// Encode before taking the lock, leaving room for the header.
	buf := bytes.NewBuffer(make([]byte, snapHeaderSize, snapHeaderSize+512*len(msgs)))
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(msgs); err != nil {
		return fmt.Errorf("encode the snapshot of session %s: %w", id, err)
	}
	val := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	return s.update(func(tx *bolt.Tx) error {
		if _, err := s.getSession(tx, id, false); err != nil {
			return err
		}
		snaps, err := s.bucket(tx, bucketSnaps)
		if err != nil {
			return err
		}
		covers, err := s.lastSeq(tx, id)
		if err != nil {
			return err
		}
		binary.BigEndian.PutUint64(val[:snapHeaderSize], covers)
		return snaps.Put([]byte(id), val)
	})
}

// lastSeq returns the sequence number of the session's last stored message
// (0 when it has none). Appends number messages 1, 2, ... with no gaps, so
// this equals the session's MessageCount; the key is what ResumeMessages
// compares against, so it is what a snapshot records.
func (s *Store) lastSeq(tx *bolt.Tx, id string) (uint64, error) {
	_, _, messages, err := s.buckets(tx)
	if err != nil {
		return 0, err
	}
	b := messages.Bucket([]byte(id))
	if b == nil {
		return 0, nil
	}
	k, _ := b.Cursor().Last()
	if k == nil {
		return 0, nil
	}
	if len(k) != docKeySize {
		return 0, s.damaged(fmt.Sprintf("message %x of session %s is unreadable", k, id), nil)
	}
	return seqFromKey(k), nil
}

// resumeLog returns the history to resume the session with, before
// conversation rewinds are applied (ResumeMessages applies them): without
// a snapshot, the same as Messages; with one, the snapshot's messages
// followed by the messages stored after it, in order. The messages the
// snapshot covers are not read at all, so the cost depends on the size of
// the snapshot and of what follows it, not on the length of the session.
// ErrNotFound (wrapped) if the session does not exist; a *DamagedError if
// the snapshot is unreadable.
func (s *Store) resumeLog(id string) ([]providers.Message, error) {
	var snap []byte // the snapshot's JSON, copied out of the transaction
	var raw rawEntries
	err := s.view(func(tx *bolt.Tx) error {
		if _, err := s.getSession(tx, id, false); err != nil {
			return err
		}
		snaps, err := s.bucket(tx, bucketSnaps)
		if err != nil {
			return err
		}
		_, _, messages, err := s.buckets(tx)
		if err != nil {
			return err
		}
		from := uint64(1)
		if v := snaps.Get([]byte(id)); v != nil {
			if len(v) < snapHeaderSize {
				return s.damaged(fmt.Sprintf("the snapshot of session %s is unreadable (%d bytes)", id, len(v)), nil)
			}
			covers := binary.BigEndian.Uint64(v[:snapHeaderSize])
			last, err := s.lastSeq(tx, id)
			if err != nil {
				return err
			}
			if covers > last {
				return s.damaged(fmt.Sprintf("the snapshot of session %s covers %d messages but the session has %d",
					id, covers, last), nil)
			}
			snap = bytes.Clone(v[snapHeaderSize:])
			from = covers + 1
		}
		b := messages.Bucket([]byte(id))
		if b == nil {
			return nil
		}
		c := b.Cursor()
		k, _ := c.Seek(seqKey(from))
		raw, err = s.copyEntries(tx, id, c, k)
		return err
	})
	if err != nil {
		return nil, err
	}
	var snapped []providers.Message
	if snap != nil {
		if err := json.Unmarshal(snap, &snapped); err != nil {
			return nil, s.damaged(fmt.Sprintf("the snapshot of session %s is unreadable", id), err)
		}
		snap = nil
	}
	// Decoded in place after the snapshot's messages: no second slice.
	out := make([]providers.Message, len(snapped)+raw.n)
	copy(out, snapped)
	snapped = nil
	if err := s.decodeMessages(id, &raw, out[len(out)-raw.n:]); err != nil {
		return nil, err
	}
	return out, nil
}
