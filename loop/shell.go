package loop

import (
	"context"
	"errors"

	"talaria/providers"
	"talaria/tools"
)

// ErrNoTerminal is Shell in a session without the terminal tool (the
// read-only tour).
var ErrNoTerminal = errors.New("this session has no terminal tool")

// Shell runs command for the user (the TUI's !cmd) with the terminal tool,
// after the same approval a model's terminal call gets, in the session's
// working directory. It returns the tool result (a denial's result when
// the approval says no). It refuses while a turn or a compression runs.
// The result is not added to the history: the caller puts it in the next
// message it sends.
func (a *Agent) Shell(ctx context.Context, command string) (tools.Result, error) {
	a.mu.Lock()
	busy := a.cur != nil || a.compressing
	a.mu.Unlock()
	if busy {
		return tools.Result{}, ErrBusy
	}
	tl, ok := a.opts.Tools.Get("terminal")
	if !ok {
		return tools.Result{}, ErrNoTerminal
	}
	args, err := providers.MarshalKeepingBytes(map[string]string{"command": command})
	if err != nil {
		return tools.Result{}, err
	}
	if a.opts.Approve != nil {
		if ok, denial := a.opts.Approve(ctx, tl.Name(), string(args)); !ok {
			return denial, nil
		}
	}
	env := a.opts.ToolEnv
	return tl.Run(ctx, &env, args), nil
}
