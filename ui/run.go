package ui

import (
	"context"
	"errors"
	"os"

	tea "charm.land/bubbletea/v2"
)

// Run shows the screen on the terminal and returns when the user quits or
// ctx ends. Turns run under a context derived from ctx. A turn still
// running is interrupted, and the context passed to Agent.Start is
// cancelled, before Run returns, and Options.Dialogs is
// closed: questions still waiting get [ErrDialogsClosed]. Then, back on
// the normal screen, it prints what Options.PrintOnExit asks for. NO_COLOR
// in the environment turns colours off.
func Run(ctx context.Context, opts Options) error {
	if os.Getenv("NO_COLOR") != "" {
		opts.NoColor = true
	}
	m := newModel(ctx, opts)
	defer m.shutdown()
	p := tea.NewProgram(m, tea.WithContext(ctx))
	_, err := p.Run()
	opts.Dialogs.Close()
	if m.turn.busy && m.agent != nil {
		m.agent.Interrupt()
	}
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return ctx.Err()
	}
	if err == nil {
		m.printOnExit()
	}
	return err
}
