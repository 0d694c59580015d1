package app

import (
	"context"
	"fmt"

	"talaria/persist"
)

// Rewind takes the current session back to before turn req.ToTurn (the
// TUI's /rewind and /undo): its files (req.Code), its conversation
// (req.Conversation), or both. A conversation rewind swaps the agent's
// history in place (loop.Agent.ReplaceHistory) for the one the store now
// resumes with: the session, its background processes, MCP servers and
// approvals go on, and the next turn is number req.ToTurn. It is refused
// while a turn runs, and no turn starts while it works.
func (w *Switcher) Rewind(ctx context.Context, req RewindRequest) (*RewindReport, error) {
	w.changing.Lock()
	defer w.changing.Unlock()
	s, err := w.hold()
	if err != nil {
		return nil, err
	}
	defer w.release()
	switch {
	case s == nil:
		return nil, ErrNoSession
	case s.Store == nil:
		return nil, ErrNoStore
	}
	rep, err := Rewind(ctx, s.Home, s.Store, s.Record.ID, req)
	if err != nil || !req.Conversation {
		return rep, err
	}
	msgs, err := s.Store.ResumeMessages(s.Record.ID)
	if err == nil {
		err = s.Agent.ReplaceHistory(persist.RepairDangling(msgs), req.ToTurn-1)
	}
	if err != nil {
		return rep, fmt.Errorf("the rewind is recorded, but the session could not take its history back: %w", err)
	}
	return rep, nil
}
