package persist

import (
	"errors"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// CreateSession stores a new session. It fills sess.ID when empty (and
// rejects an id already in use), CreatedAt when zero, UpdatedAt, and
// SystemPromptState.
func (s *Store) CreateSession(sess *Session) error {
	return s.createSession(sess, nil)
}

// createSession stores sess and, with also, writes more in the same
// commit.
func (s *Store) createSession(sess *Session, also func(tx *bolt.Tx, id string) error) error {
	now := time.Now()
	rec := *sess
	if rec.CreatedAt.IsZero() {
		rec.CreatedAt = now
	}
	rec.CreatedAt = rec.CreatedAt.UTC().Round(0)
	rec.UpdatedAt = now.UTC().Round(0)
	err := s.update(func(tx *bolt.Tx) error {
		sessions, _, _, err := s.buckets(tx)
		if err != nil {
			return err
		}
		if rec.ID == "" {
			for range 10 {
				if id := NewSessionID(now); sessions.Get([]byte(id)) == nil {
					rec.ID = id
					break
				}
			}
			if rec.ID == "" {
				return errors.New("persist: could not pick a free session id")
			}
		} else if sessions.Get([]byte(rec.ID)) != nil {
			return fmt.Errorf("session %s already exists", rec.ID)
		}
		if err := s.putSession(tx, &rec, true); err != nil || also == nil {
			return err
		}
		return also(tx, rec.ID)
	})
	if err != nil {
		return err
	}
	*sess = rec
	return nil
}
