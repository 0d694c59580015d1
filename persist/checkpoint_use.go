package persist

import (
	"encoding/json"
	"time"

	bolt "go.etcd.io/bbolt"
)

// CheckpointUse is what one session's records name in the checkpoint
// store: what pruning the store must keep for it.
type CheckpointUse struct {
	SessionID string
	// IDs are the checkpoints its checkpoint records and rewinds (the
	// tree saved before each) name, in order, without repeats.
	IDs []string
	// Last is when its newest record was made.
	Last time.Time
}

// CheckpointUses lists every session that has checkpoint records, in
// one read of the store. Unreadable records are skipped (what they name
// is then not protected from a prune; the rest of the session is).
func (s *Store) CheckpointUses() ([]CheckpointUse, error) {
	var out []CheckpointUse
	err := s.view(func(tx *bolt.Tx) error {
		cps := tx.Bucket([]byte(bucketCheckpoints))
		if cps == nil {
			return nil
		}
		rws := tx.Bucket([]byte(bucketRewinds))
		return cps.ForEachBucket(func(k []byte) error {
			u := CheckpointUse{SessionID: string(k)}
			seen := map[string]bool{}
			add := func(id string, at time.Time) {
				if id != "" && !seen[id] {
					seen[id] = true
					u.IDs = append(u.IDs, id)
				}
				if at.After(u.Last) {
					u.Last = at
				}
			}
			err := cps.Bucket(k).ForEach(func(_, v []byte) error {
				var r CheckpointRecord
				if json.Unmarshal(v, &r) == nil {
					add(r.ID, r.At)
				}
				return nil
			})
			if err != nil {
				return err
			}
			if rws != nil {
				if b := rws.Bucket(k); b != nil {
					err = b.ForEach(func(_, v []byte) error {
						var r Rewind
						if json.Unmarshal(v, &r) == nil {
							add(r.Saved, r.At)
						}
						return nil
					})
				}
			}
			out = append(out, u)
			return err
		})
	})
	return out, err
}
