package app

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"talaria/loop"
	"talaria/persist"
	"talaria/persist/checkpoint"
)

// afterTimeout bounds the checkpoint taken as a turn ends.
const afterTimeout = time.Minute

// checkpointer takes the session's working-tree checkpoints for the loop
// and records them with the session. It also keeps the turn the agent is
// in, so that every saved message carries its turn number.
type checkpointer struct {
	cps     *checkpoint.Store
	db      *persist.Store
	session string
	root    string
	// turn is the running turn (from turn.started).
	turn atomic.Int64
	// pending is the turn that took checkpoints and still needs its
	// closing one (0: none).
	pending atomic.Int64
}

// wireCheckpoints makes the agent checkpoint the working tree before
// every batch that may change files and at the end of such a turn, and
// number the messages it saves by turn (through ss, the session store of
// opts). Subagents (wired before) share neither.
func (s *Session) wireCheckpoints(opts *loop.Options, ss *sessionStore) {
	c := &checkpointer{cps: s.checkpointStore(opts.Log), db: s.Store, session: s.Record.ID, root: s.Cwd}
	s.autoPrune(opts.Log)
	inner := opts.Sink
	opts.Sink = func(e loop.Event) {
		if ts, ok := e.(*loop.TurnStarted); ok && ts.SessionID == c.session {
			c.turn.Store(int64(ts.Turn))
		}
		if inner != nil {
			inner(e)
		}
	}
	ss.turn = func() int { return int(c.turn.Load()) }
	if s.Record.Turns > 0 || len(opts.History) == 0 {
		opts.Turns = s.Record.Turns
	}
	opts.Checkpoint = c.before
	after := opts.AfterTurn
	opts.AfterTurn = func(r loop.Result) error {
		var err error
		if after != nil {
			err = after(r)
		}
		return errors.Join(err, c.after())
	}
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
