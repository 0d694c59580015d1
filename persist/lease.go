package persist

import (
	"encoding/json"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// bucketLeases maps a session id to the Lease of the process running it.
// It is created on first use, so stores without it need no migration.
const bucketLeases = "leases"

// Lease says which process runs a session: one writer per session.
type Lease struct {
	// PID and Start (clock ticks since boot, from /proc) identify the
	// process across pid reuse.
	PID   int    `json:"pid"`
	Start uint64 `json:"start"`
	// Since is when it took the session.
	Since time.Time `json:"since"`
}

// same reports whether l and o name the same process.
func (l Lease) same(o Lease) bool { return l.PID == o.PID && l.Start == o.Start }

// identical reports whether l and o are the same taking of a lease: a
// process that opened a session twice releases only its own.
func (l Lease) identical(o Lease) bool { return l.same(o) && l.Since.Equal(o.Since) }

// BusyError is a session another live process runs.
type BusyError struct {
	SessionID string
	Holder    Lease
}

// Error says who holds the session and what to do.
func (e *BusyError) Error() string {
	return fmt.Sprintf("session %s is in use by another talaria process (pid %d, since %s); wait for it to finish, or pass --wait to wait for it",
		e.SessionID, e.Holder.PID, e.Holder.Since.Local().Format("15:04:05"))
}

// AcquireLease makes me the one writer of session id. A lease held by
// another process that alive reports as running makes it fail with a
// *BusyError; a dead holder's lease is taken over. Taking a lease me
// already holds succeeds.
func (s *Store) AcquireLease(id string, me Lease, alive func(Lease) bool) error {
	return s.update(func(tx *bolt.Tx) error { return s.putLease(tx, id, me, alive) })
}

// CreateLeasedSession is CreateSession with me's lease on the new session
// in the same commit: one commit (two fsyncs) instead of two, and no moment
// in which another process could take the new session first.
func (s *Store) CreateLeasedSession(sess *Session, me Lease) error {
	return s.createSession(sess, func(tx *bolt.Tx, id string) error { return s.putLease(tx, id, me, nil) })
}

// putLease writes me's lease on session id unless a live other process
// (by alive; nil: none can be) holds it.
func (s *Store) putLease(tx *bolt.Tx, id string, me Lease, alive func(Lease) bool) error {
	b, err := tx.CreateBucketIfNotExists([]byte(bucketLeases))
	if err != nil {
		return s.damaged("cannot create the leases bucket", err)
	}
	if raw := b.Get([]byte(id)); raw != nil && alive != nil {
		var held Lease
		if json.Unmarshal(raw, &held) == nil && !held.same(me) && alive(held) {
			return &BusyError{SessionID: id, Holder: held}
		}
	}
	raw, err := json.Marshal(me)
	if err != nil {
		return err
	}
	return b.Put([]byte(id), raw)
}

// ReleaseLease gives up me's lease on session id; a lease taken by
// another process, or later by this one, is left alone.
func (s *Store) ReleaseLease(id string, me Lease) error {
	return s.update(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(bucketLeases))
		if b == nil {
			return nil
		}
		var held Lease
		if raw := b.Get([]byte(id)); raw == nil || json.Unmarshal(raw, &held) != nil || !held.identical(me) {
			return nil
		}
		return b.Delete([]byte(id))
	})
}

// Leases returns the leases of the sessions a live process runs.
func (s *Store) Leases(alive func(Lease) bool) (map[string]Lease, error) {
	out := map[string]Lease{}
	err := s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(bucketLeases))
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			var l Lease
			if json.Unmarshal(v, &l) == nil && alive(l) {
				out[string(k)] = l
			}
			return nil
		})
	})
	return out, err
}

// MarkBusy sets Busy on the sessions of list that leases names.
func MarkBusy(list []Session, leases map[string]Lease) {
	for i := range list {
		if l, ok := leases[list[i].ID]; ok {
			list[i].Busy = &l
		}
	}
}
