package tools

import (
	"context"
	"strings"
	"time"

	"talaria/providers"
)

// sandboxFollowUp looks at the result of a foreground command run in the
// sandbox: when it failed and its output says the sandbox stopped it, the
// result says so and how to allow it, and, where a user can be asked
// (env.Escalate), the user may let it run once outside the sandbox.
func sandboxFollowUp(ctx context.Context, env *Env, command, dir string, timeout time.Duration, res Result) Result {
	pol := commandPolicy(env)
	if pol.Sandbox == nil || !res.IsError || ctx.Err() != nil {
		return res
	}
	hint := pol.Sandbox.StoppedHint(res.Output)
	if hint == "" {
		return res
	}
	if env.Escalate != nil && env.Escalate(ctx, "terminal", command) {
		outside := pol
		outside.Sandbox = nil
		again := runShell(ctx, outside, command, dir, timeout)
		again.Output = "[" + hint + " The user approved running it once outside the sandbox; this is that run.]\n" + again.Output
		return again
	}
	how := " No user is here to let it run outside the sandbox; do not retry it unchanged."
	if env.Escalate != nil {
		how = " The user did not let it run outside the sandbox; do not retry it unchanged."
	}
	res.Output = strings.TrimRight(res.Output, "\n") + "\n[" + hint + how + "]"
	return res
}

// Escalate asks the user whether the command of tool, which the sandbox
// stopped, may run once outside the sandbox. Without a user (headless),
// in the read-only mode, or when ctx ends, the answer is no.
func (a *Approver) Escalate(ctx context.Context, tool, command string) bool {
	if a.Prompt == nil || a.Mode() == ApprovalReadOnly {
		return false
	}
	args, _ := providers.MarshalKeepingBytes(map[string]string{"command": command})
	req := ApprovalRequest{Tool: tool, Summary: "Run once outside the sandbox (the sandbox stopped it): " + clip(command, 300),
		NoSessionScope: true, OutsideSandbox: true, Args: string(args)}
	if ok, why := IsDestructiveCommand(command); ok {
		req.Destructive = true
		req.Summary += " [destructive: " + why + "]"
	}
	a.promptMu.Lock()
	defer a.promptMu.Unlock()
	if ctx.Err() != nil {
		return false
	}
	d, err := a.Prompt(ctx, req)
	return err == nil && d.Allow
}
