package persist

import (
	"encoding/binary"
	"fmt"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// bucketInputHistory holds the composer's input history: one sub-bucket
// per project (its git root, else its directory), entries under
// big-endian sequence keys, oldest first. It is created on first use, so
// stores of every schema version accept it without a migration.
const bucketInputHistory = "input_history"

// MaxInputHistory is how many inputs a project keeps; older ones go.
const MaxInputHistory = 1000

// maxInputBytes caps one saved input (a giant paste is not history).
const maxInputBytes = 64 << 10

// AddInput appends text to project's input history, unless it repeats the
// newest entry or is blank, and drops the oldest entries past
// MaxInputHistory. Inputs over 64 KiB are not kept.
func (s *Store) AddInput(project, text string) error {
	if strings.TrimSpace(text) == "" || len(text) > maxInputBytes || project == "" {
		return nil
	}
	return s.update(func(tx *bolt.Tx) error {
		root, err := tx.CreateBucketIfNotExists([]byte(bucketInputHistory))
		if err != nil {
			return fmt.Errorf("input history: %w", err)
		}
		b, err := root.CreateBucketIfNotExists([]byte(project))
		if err != nil {
			return fmt.Errorf("input history of %s: %w", project, err)
		}
		c := b.Cursor()
		if k, v := c.Last(); k != nil && string(v) == text {
			return nil
		}
		seq, err := b.NextSequence()
		if err != nil {
			return err
		}
		var key [8]byte
		binary.BigEndian.PutUint64(key[:], seq)
		if err := b.Put(key[:], []byte(text)); err != nil {
			return err
		}
		// Keys are consecutive sequence numbers: drop those at or below
		// seq-MaxInputHistory.
		if seq <= MaxInputHistory {
			return nil
		}
		cut := seq - MaxInputHistory
		for k, _ := b.Cursor().First(); k != nil && binary.BigEndian.Uint64(k) <= cut; k, _ = b.Cursor().First() {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
}

// InputHistory returns project's saved inputs, oldest first, at most the
// last limit of them (limit <= 0: all).
func (s *Store) InputHistory(project string, limit int) ([]string, error) {
	var out []string
	err := s.view(func(tx *bolt.Tx) error {
		root := tx.Bucket([]byte(bucketInputHistory))
		if root == nil {
			return nil
		}
		b := root.Bucket([]byte(project))
		if b == nil {
			return nil
		}
		c := b.Cursor()
		for k, v := c.Last(); k != nil && (limit <= 0 || len(out) < limit); k, v = c.Prev() {
			out = append(out, string(v))
		}
		return nil
	})
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, err
}
