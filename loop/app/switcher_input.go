package app

import (
	"context"

	"talaria/loop"
)

// StartInput starts a turn with images on the current session (see
// loop.Agent.StartInput).
func (w *Switcher) StartInput(ctx context.Context, in loop.Input) error {
	w.gate.RLock()
	defer w.gate.RUnlock()
	if w.held {
		return ErrChanging
	}
	s := w.Current()
	if s == nil {
		return ErrNoSession
	}
	return s.Agent.StartInput(ctx, in)
}
