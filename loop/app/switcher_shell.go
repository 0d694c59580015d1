package app

import (
	"context"

	"talaria/tools"
)

// Shell runs the TUI's !cmd on the current session (see loop.Agent.Shell).
func (w *Switcher) Shell(ctx context.Context, command string) (tools.Result, error) {
	a := w.agent()
	if a == nil {
		return tools.Result{}, ErrNoSession
	}
	return a.Shell(ctx, command)
}
