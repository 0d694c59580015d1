package app

import (
	"context"

	"talaria/loop"
	"talaria/providers"
	"talaria/tools"
)

// Shell runs the TUI's !cmd on the current session: the terminal tool in
// the session's working directory, with its environment and sandbox, and
// without an approval (the user typed the command). Live output goes to
// tools.Output(ctx). It is refused (loop.ErrBusy) while a turn runs.
func (w *Switcher) Shell(ctx context.Context, command string) (tools.Result, error) {
	// A change of session waits for the command: it runs in the session's
	// process manager, which closing the session would end.
	w.changing.Lock()
	defer w.changing.Unlock()
	s := w.Current()
	if s == nil || s.Agent == nil {
		return tools.Result{}, ErrNoSession
	}
	if s.tools == nil { // a session without its own toolset (the demo)
		return s.Agent.Shell(ctx, command)
	}
	if s.Agent.Busy() {
		return tools.Result{}, loop.ErrBusy
	}
	tl, ok := s.tools.registry.Get("terminal")
	if !ok {
		return tools.Result{}, loop.ErrNoTerminal
	}
	args, err := providers.MarshalKeepingBytes(map[string]string{"command": command})
	if err != nil {
		return tools.Result{}, err
	}
	env := s.tools.env
	return tl.Run(ctx, &env, args), nil
}
