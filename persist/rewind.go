package persist

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"

	"talaria/providers"
)

// Rewind data lives in two buckets of its own, created on first use (an
// older talaria ignores them), both append-only:
//
//	checkpoints <session id> → nested bucket: big-endian uint64 seq → JSON
//	            CheckpointRecord, one per working-tree checkpoint
//	rewinds     <session id> → nested bucket: big-endian uint64 seq → JSON
//	            Rewind, one per `rewind`
const (
	bucketCheckpoints = "checkpoints"
	bucketRewinds     = "rewinds"
)

// Checkpoint record kinds.
const (
	// CheckpointBefore is taken before a tool batch that may change files.
	CheckpointBefore = "before"
	// CheckpointAfter is taken when a turn that took checkpoints ends.
	CheckpointAfter = "after"
	// CheckpointRestored is the tree just after a code rewind.
	CheckpointRestored = "restored"
)

// CheckpointRecord ties a working-tree checkpoint to a session's turn.
type CheckpointRecord struct {
	// Seq is the record's 1-based position, assigned by the store.
	Seq       uint64 `json:"seq"`
	Turn      int    `json:"turn"`
	Iteration int    `json:"iteration,omitempty"`
	// Kind is CheckpointBefore, CheckpointAfter or CheckpointRestored.
	Kind string `json:"kind"`
	// ID names the checkpoint in the checkpoint store.
	ID string `json:"checkpoint"`
	// LogSeq is the number of messages stored when it was taken, set by
	// the store: it tells which run of a turn number the record belongs
	// to when a rewound turn number is used again.
	LogSeq uint64    `json:"log_seq"`
	At     time.Time `json:"at"`
}

// Rewind records one rewind of a session.
type Rewind struct {
	// Seq is the record's 1-based position, assigned by the store.
	Seq uint64 `json:"seq"`
	// ToTurn: the session was taken back to before this turn.
	ToTurn int `json:"to_turn"`
	// Code and Conversation say what was rewound.
	Code         bool `json:"code"`
	Conversation bool `json:"conversation"`
	// LogSeq is the number of messages stored when it happened, set by
	// the store: a conversation rewind drops turns ToTurn and later among
	// the messages up to there.
	LogSeq uint64 `json:"log_seq"`
	// Restored, Refused and Untracked are what the code rewind did.
	Restored  []string `json:"restored,omitempty"`
	Refused   []string `json:"refused,omitempty"`
	Untracked []string `json:"untracked,omitempty"`
	// Saved is the checkpoint of the tree as it was before the rewind.
	Saved string    `json:"saved,omitempty"`
	At    time.Time `json:"at"`
}

// AppendTurnMessages is AppendMessages for messages of turn turn: each is
// stored with its turn number, and the session's Turns follows.
func (s *Store) AppendTurnMessages(id string, turn int, msgs ...providers.Message) error {
	entries := make([]Entry, len(msgs))
	for i := range msgs {
		entries[i] = Entry{Message: msgs[i], Turn: turn}
	}
	return s.AppendEntries(id, entries...)
}

// AddCheckpoint appends a checkpoint record to the session (Seq, LogSeq
// and a zero At are filled in).
func (s *Store) AddCheckpoint(id string, rec CheckpointRecord) error {
	if rec.At.IsZero() {
		rec.At = time.Now()
	}
	rec.At = rec.At.UTC().Round(0)
	return s.update(func(tx *bolt.Tx) error {
		if _, err := s.getSession(tx, id, false); err != nil {
			return err
		}
		last, err := s.lastSeq(tx, id)
		if err != nil {
			return err
		}
		rec.LogSeq = last
		return appendRecord(tx, bucketCheckpoints, id, func(seq uint64) any { rec.Seq = seq; return &rec })
	})
}

// Checkpoints returns the session's checkpoint records in order.
func (s *Store) Checkpoints(id string) ([]CheckpointRecord, error) {
	var out []CheckpointRecord
	err := s.readRecords(id, bucketCheckpoints, func(raw []byte) error {
		var r CheckpointRecord
		out = append(out, r)
		return json.Unmarshal(raw, &out[len(out)-1])
	})
	return out, err
}

// Rewinds returns the session's rewind records in order.
func (s *Store) Rewinds(id string) ([]Rewind, error) {
	var out []Rewind
	err := s.readRecords(id, bucketRewinds, func(raw []byte) error {
		var r Rewind
		out = append(out, r)
		return json.Unmarshal(raw, &out[len(out)-1])
	})
	return out, err
}

// RecordRewind appends a rewind record (Seq, LogSeq and a zero At are
// filled in). A conversation rewind makes the session continue as if turn
// ToTurn and the later ones had not happened: ResumeMessages leaves them
// out, Turns becomes ToTurn-1 (the next turn is ToTurn again), and a
// compaction snapshot that summarised any of them is dropped (the
// history is then rebuilt from the log). The message log is untouched.
func (s *Store) RecordRewind(id string, r Rewind) (Rewind, error) {
	if r.ToTurn < 1 {
		return r, fmt.Errorf("rewind: turn %d: turns count from 1", r.ToTurn)
	}
	if r.At.IsZero() {
		r.At = time.Now()
	}
	r.At = r.At.UTC().Round(0)
	var dropSnap bool
	rewound := 0
	if r.Conversation {
		entries, err := s.Entries(id)
		if err != nil {
			return r, err
		}
		prev, err := s.Rewinds(id)
		if err != nil {
			return r, err
		}
		covers, err := s.snapshotCovers(id)
		if err != nil {
			return r, err
		}
		turns, live := assignTurns(entries, prev)
		for i := range entries {
			if entries[i].Seq <= covers && live[i] && turns[i] >= r.ToTurn {
				dropSnap = true
				break
			}
		}
		rewound = rewoundAfter(entries, prev, r.ToTurn)
	}
	err := s.update(func(tx *bolt.Tx) error {
		sess, err := s.getSession(tx, id, false)
		if err != nil {
			return err
		}
		if r.LogSeq, err = s.lastSeq(tx, id); err != nil {
			return err
		}
		if r.Conversation {
			sess.Turns, sess.RewoundMessages = r.ToTurn-1, rewound
			sess.UpdatedAt = time.Now().UTC().Round(0)
			if err := s.putSession(tx, sess, false); err != nil {
				return err
			}
			if dropSnap {
				snaps, err := s.bucket(tx, bucketSnaps)
				if err != nil {
					return err
				}
				if err := snaps.Delete([]byte(id)); err != nil {
					return err
				}
			}
		}
		return appendRecord(tx, bucketRewinds, id, func(seq uint64) any { r.Seq = seq; return &r })
	})
	return r, err
}

// ResumeMessages returns the history to resume the session with: the
// compaction snapshot (if any) and the messages after it, less the turns
// that conversation rewinds took back. ErrNotFound (wrapped) if the
// session does not exist; a *DamagedError if the snapshot is unreadable.
// Without rewinds the cost depends on the size of the snapshot and of
// what follows it, not on the length of the session.
func (s *Store) ResumeMessages(id string) ([]providers.Message, error) {
	msgs, err := s.resumeLog(id)
	if err != nil {
		return nil, err
	}
	rws, err := s.Rewinds(id)
	if err != nil {
		return nil, err
	}
	covers, err := s.snapshotCovers(id)
	if err != nil {
		return nil, err
	}
	// Rewinds up to the snapshot are already in it.
	if !slices.ContainsFunc(rws, func(r Rewind) bool { return r.Conversation && r.LogSeq > covers }) {
		return msgs, nil
	}
	entries, err := s.Entries(id)
	if err != nil {
		return nil, err
	}
	_, live := assignTurns(entries, rws)
	after := 0
	for i := range entries {
		if entries[i].Seq > covers {
			after++
		}
	}
	out := slices.Clip(msgs[:max(len(msgs)-after, 0)])
	for i := range entries {
		if entries[i].Seq > covers && live[i] {
			out = append(out, entries[i].Message)
		}
	}
	return out, nil
}

// TurnInfo is one turn of a session as the rewind surface shows it.
type TurnInfo struct {
	Turn int `json:"turn"`
	// Input is the user message that started it.
	Input string `json:"input"`
	// Seq is that message's sequence number.
	Seq uint64 `json:"seq"`
	// Live is false for a turn a conversation rewind took back.
	Live bool `json:"live"`
	// Checkpoints are the records taken during this run of the turn.
	Checkpoints []CheckpointRecord `json:"checkpoints"`
}

// Turns returns the session's turns in log order (a turn number taken back
// and used again appears twice, the rewound run with Live false), each
// with its checkpoint records.
func (s *Store) Turns(id string) ([]TurnInfo, error) {
	entries, err := s.Entries(id)
	if err != nil {
		return nil, err
	}
	rws, err := s.Rewinds(id)
	if err != nil {
		return nil, err
	}
	cps, err := s.Checkpoints(id)
	if err != nil {
		return nil, err
	}
	turns, live := assignTurns(entries, rws)
	var out []TurnInfo
	for i := range entries {
		if turns[i] == 0 || (i > 0 && turns[i-1] == turns[i] && live[i-1] == live[i]) {
			continue
		}
		out = append(out, TurnInfo{Turn: turns[i], Input: entries[i].Message.Content, Seq: entries[i].Seq,
			Live: live[i], Checkpoints: []CheckpointRecord{}})
	}
	for _, c := range cps {
		// The latest run of that turn number begun by then.
		for j := len(out) - 1; j >= 0; j-- {
			if out[j].Turn == c.Turn && out[j].Seq <= c.LogSeq {
				out[j].Checkpoints = append(out[j].Checkpoints, c)
				break
			}
		}
	}
	return out, nil
}

// ExportSession writes the session's full log as JSON Lines: every message
// as stored (rewound turns included), and each rewind record where it
// happened, as {"type":"rewind","rewind":{…}}.
func (s *Store) ExportSession(w io.Writer, id string) error {
	msgs, err := s.Entries(id)
	if err != nil {
		return err
	}
	rws, err := s.Rewinds(id)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	writeRewinds := func(upTo uint64) error {
		for len(rws) > 0 && rws[0].LogSeq <= upTo {
			line := struct {
				Type   string `json:"type"`
				Rewind Rewind `json:"rewind"`
			}{"rewind", rws[0]}
			if err := enc.Encode(&line); err != nil {
				return err
			}
			rws = rws[1:]
		}
		return nil
	}
	for i := range msgs {
		if err := writeRewinds(msgs[i].Seq - 1); err != nil {
			return err
		}
		if err := enc.Encode(&msgs[i].Message); err != nil {
			return fmt.Errorf("export message %d: %w", msgs[i].Seq, err)
		}
	}
	return writeRewinds(^uint64(0))
}

// assignTurns gives each entry its turn (the stored one, else derived: a
// user message starts the next turn, anything else belongs to the turn
// before it) and whether it is still in the history after the
// conversation rewinds (in order; each drops the messages of turns ToTurn
// and later stored up to its LogSeq).
func assignTurns(entries []Entry, rws []Rewind) (turns []int, live []bool) {
	turns, live = make([]int, len(entries)), make([]bool, len(entries))
	cur, r := 0, 0
	for i := range entries {
		for ; r < len(rws) && rws[r].LogSeq < entries[i].Seq; r++ {
			if rws[r].Conversation {
				for j := range i {
					if turns[j] >= rws[r].ToTurn {
						live[j] = false
					}
				}
				cur = rws[r].ToTurn - 1
			}
		}
		switch e := &entries[i]; {
		case e.Turn > 0:
			cur = e.Turn
		case e.Message.Role == providers.RoleUser:
			cur++
		}
		turns[i], live[i] = cur, true
	}
	for ; r < len(rws); r++ {
		if rws[r].Conversation {
			for j := range entries {
				if turns[j] >= rws[r].ToTurn {
					live[j] = false
				}
			}
		}
	}
	return turns, live
}

// snapshotCovers returns the sequence number the session's compaction
// snapshot covers, 0 without one.
func (s *Store) snapshotCovers(id string) (uint64, error) {
	var covers uint64
	err := s.view(func(tx *bolt.Tx) error {
		snaps, err := s.bucket(tx, bucketSnaps)
		if err != nil {
			return err
		}
		if v := snaps.Get([]byte(id)); len(v) >= snapHeaderSize {
			covers = binary.BigEndian.Uint64(v[:snapHeaderSize])
		}
		return nil
	})
	return covers, err
}

// appendRecord appends the JSON of rec(seq) to the session's nested
// bucket in the named top-level bucket, creating both as needed.
func appendRecord(tx *bolt.Tx, bucket, id string, rec func(seq uint64) any) error {
	top, err := tx.CreateBucketIfNotExists([]byte(bucket))
	if err != nil {
		return err
	}
	b, err := top.CreateBucketIfNotExists([]byte(id))
	if err != nil {
		return err
	}
	seq, err := b.NextSequence()
	if err != nil {
		return err
	}
	raw, err := json.Marshal(rec(seq))
	if err != nil {
		return err
	}
	return b.Put(seqKey(seq), raw)
}

// readRecords calls fn with each record of the session in the named
// bucket, in order (none when the bucket does not exist yet).
func (s *Store) readRecords(id, bucket string, fn func(raw []byte) error) error {
	var raws [][]byte
	err := s.view(func(tx *bolt.Tx) error {
		if _, err := s.getSession(tx, id, false); err != nil {
			return err
		}
		top := tx.Bucket([]byte(bucket))
		if top == nil {
			return nil
		}
		b := top.Bucket([]byte(id))
		if b == nil {
			return nil
		}
		return b.ForEach(func(_, v []byte) error {
			raws = append(raws, bytes.Clone(v))
			return nil
		})
	})
	if err != nil {
		return err
	}
	for _, raw := range raws {
		if err := fn(raw); err != nil {
			return s.damaged(fmt.Sprintf("a %s record of session %s is unreadable", bucket, id), err)
		}
	}
	return nil
}

// deleteRewindData removes a session's checkpoint and rewind records.
func deleteRewindData(tx *bolt.Tx, id string) error {
	for _, name := range []string{bucketCheckpoints, bucketRewinds} {
		top := tx.Bucket([]byte(name))
		if top == nil || top.Bucket([]byte(id)) == nil {
			continue
		}
		if err := top.DeleteBucket([]byte(id)); err != nil {
			return err
		}
	}
	return nil
}
