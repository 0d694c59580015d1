package app

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"talaria/persist"
	"talaria/persist/checkpoint"
)

// afterTimeout bounds the checkpoint taken as a turn ends.
const afterTimeout = time.Minute

// checkpointer takes the session's working-tree checkpoints for the loop
// and records them with the session: before every batch that may change
// files (loop.Options.Checkpoint) and at the end of such a turn (part of
// loop.Options.AfterTurn). Subagents take none.
type checkpointer struct {
	cps     *checkpoint.Store
	db      *persist.Store
	session string
	root    string
	// pending is the turn that took checkpoints and still needs its
	// closing one (0: none).
	pending atomic.Int64
}

// newCheckpointer is the session's checkpointer; the store is pruned to
// the configured limits first (the session's lease is held, so its own
// checkpoints count as live).
func (s *Session) newCheckpointer() *checkpointer {
	s.autoPrune(s.log)
	return &checkpointer{cps: s.checkpointStore(s.log), db: s.Store, session: s.Record.ID, root: s.Cwd}
}

// before is loop.Options.Checkpoint.
func (c *checkpointer) before(ctx context.Context, turn, iteration int) (string, error) {
	// Held from taking to recording: a prune cannot come between.
	release, err := c.cps.Hold(ctx)
	if err != nil {
		return "", err
	}
	defer release()
	m, err := c.cps.Take(ctx, c.root)
	if err != nil {
		return "", err
	}
	rec := persist.CheckpointRecord{Turn: turn, Iteration: iteration, Kind: persist.CheckpointBefore, ID: m.ID}
	if err := c.db.AddCheckpoint(c.session, rec); err != nil {
		return "", fmt.Errorf("recording checkpoint %s: %w", m.ID, err)
	}
	c.pending.Store(int64(turn))
	return m.ID, nil
}

// after records the tree as a turn that took checkpoints left it, so that
// a later rewind can tell its changes from changes made outside talaria.
func (c *checkpointer) after() error {
	turn := c.pending.Swap(0)
	if turn == 0 {
		return nil
	}
	// The turn's own context may be cancelled (an interrupt): this record
	// matters most then, so it gets a context of its own, bounded so that
	// a tree that cannot be scanned cannot keep the turn from ending.
	ctx, cancel := context.WithTimeout(context.Background(), afterTimeout)
	defer cancel()
	release, err := c.cps.Hold(ctx)
	if err != nil {
		return fmt.Errorf("checkpoint at the end of turn %d: %w", turn, err)
	}
	defer release()
	m, err := c.cps.Take(ctx, c.root)
	if err == nil {
		err = c.db.AddCheckpoint(c.session, persist.CheckpointRecord{Turn: int(turn), Kind: persist.CheckpointAfter, ID: m.ID})
	}
	if err != nil {
		return fmt.Errorf("checkpoint at the end of turn %d: %w", turn, err)
	}
	return nil
}
