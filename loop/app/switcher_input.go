package app

import (
	"context"

	"talaria/loop"
)

// StartInput starts a turn with images on the current session (see
// loop.Agent.StartInput).
func (w *Switcher) StartInput(ctx context.Context, in loop.Input) error {
	a := w.agent()
	if a == nil {
		return ErrNoSession
	}
	return a.StartInput(ctx, in)
}
