package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"talaria/loop/config"
	"talaria/persist"
	"talaria/persist/checkpoint"
)

// autoPruneTimeout bounds the prune a session runs as it opens: a store
// that takes longer (or is busy) is pruned the next time.
const autoPruneTimeout = 3 * time.Second

// PruneCheckpoints prunes the checkpoint store under home to lim (as
// `talaria checkpoints prune` does): the sessions live processes run keep
// all their checkpoints, and the report says when they alone exceed a
// limit. With dry, nothing is removed.
func PruneCheckpoints(ctx context.Context, home string, st *persist.Store, lim config.Checkpoints, dry bool) (*checkpoint.PruneReport, error) {
	uses, err := st.CheckpointUses()
	if err != nil {
		return nil, err
	}
	leases, err := st.Leases(leaseAlive)
	if err != nil {
		return nil, err
	}
	sessions := make([]checkpoint.Session, 0, len(uses)+len(leases))
	for _, u := range uses {
		_, live := leases[u.SessionID]
		sessions = append(sessions, checkpoint.Session{ID: u.SessionID, Checkpoints: u.IDs, Last: u.Last, Live: live})
		delete(leases, u.SessionID)
	}
	// Live sessions without a checkpoint yet (this one, as it opens)
	// count among the newest.
	for id, l := range leases {
		sessions = append(sessions, checkpoint.Session{ID: id, Last: l.Since, Live: true})
	}
	return checkpoint.Open(home).Prune(ctx, sessions, checkpoint.Limits{KeepSessions: lim.KeepSessions, MaxBytes: lim.MaxBytes}, dry)
}

// autoPrune prunes the store to the configured limits as a session opens
// (after its lease is taken, so it counts as live), bounded in time; a
// busy store is left for next time. What went is logged.
func (s *Session) autoPrune(log func(string)) {
	lim := s.Config.Checkpoints
	if lim.KeepSessions <= 0 && lim.MaxBytes <= 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), autoPruneTimeout)
	defer cancel()
	rep, err := PruneCheckpoints(ctx, s.Home, s.Store, lim, false)
	switch {
	case errors.Is(err, checkpoint.ErrBusy), errors.Is(err, context.DeadlineExceeded):
		return
	case err != nil:
		if log != nil {
			log("checkpoint prune: " + err.Error())
		}
		return
	}
	if log != nil && len(rep.Pruned) > 0 {
		log(fmt.Sprintf("checkpoint prune: the checkpoints of %d session(s) went (checkpoints.keep_sessions %d, max_bytes %d): store %s -> %s",
			len(rep.Pruned), lim.KeepSessions, lim.MaxBytes, checkpoint.Bytes(rep.BytesBefore), checkpoint.Bytes(rep.BytesAfter)))
	}
	for _, n := range rep.Notes {
		if log != nil {
			log("checkpoint prune: " + n)
		}
	}
}
