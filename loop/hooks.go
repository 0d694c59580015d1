package loop

import (
	"context"
	"strings"

	"talaria/providers"
	"talaria/tools"
)

// Hooks are the user's hooks as the loop runs them (Claude Code's events;
// the wiring in loop/app fills them from the session's hook runner). Each
// may be nil; each must return once its context ends. A hook that fails,
// hangs past its timeout or crashes never stops a turn: the runner reports
// it (hook.completed) and the function returns the zero answer.
type Hooks struct {
	// PreTool runs before the approval check of each call whose
	// arguments decode: a block keeps the tool from running (the model
	// reads the reason); ask and allow steer the approval check.
	PreTool tools.PreToolHook
	// PostTool runs after each call that ran; its note is added to the
	// result, marked.
	PostTool tools.PostToolHook
	// PromptSubmit runs before the turn's user message is added: a block
	// drops the prompt (the turn ends prompt_blocked, nothing is sent or
	// saved), Context is added to the user message.
	PromptSubmit func(ctx context.Context, prompt string) PromptVerdict
	// Stop runs when the turn would end with a text answer; a non-empty
	// reason makes the turn go on with it as a user note (active is true
	// once a Stop hook already made this turn go on). The iteration budget
	// still applies, and at most MaxStopContinues times a turn.
	Stop func(ctx context.Context, active bool, lastAnswer string) (reason string)
	// SubagentStop is Stop for a delegate_task child: ForChild makes it
	// the child's Stop.
	SubagentStop func(ctx context.Context, active bool, lastAnswer string) (reason string)
	// PreCompact runs before a compression pass (trigger manual or auto);
	// true skips the pass (not when the request overflows the window).
	PreCompact func(ctx context.Context, trigger string) (block bool)
}

// ForChild returns the hooks of a delegate_task child: the tool hooks
// and PreCompact as they are, SubagentStop as its Stop, no
// UserPromptSubmit (the child's prompt is the parent's task).
func (h Hooks) ForChild() Hooks {
	return Hooks{PreTool: h.PreTool, PostTool: h.PostTool, Stop: h.SubagentStop, PreCompact: h.PreCompact}
}

// PromptVerdict is what the UserPromptSubmit hooks decided.
type PromptVerdict struct {
	// Block drops the prompt; Reason says why (shown to the user).
	Block  bool
	Reason string
	// Context is added to the user message, after the prompt.
	Context string
}

// MaxStopContinues bounds how often Stop hooks may make one turn go on,
// besides the iteration budget.
const MaxStopContinues = 8

// ExitPromptBlocked ends a turn whose prompt a UserPromptSubmit hook
// dropped: no model call was made and nothing was saved (talaria's
// addition to the list).
const ExitPromptBlocked ExitKind = "prompt_blocked"

// preCompactBlocks runs the PreCompact hooks (trigger manual or auto);
// a panic in them is a "go on".
func preCompactBlocks(ctx context.Context, pre func(context.Context, string) bool, manual bool) (block bool) {
	defer func() {
		if recover() != nil {
			block = false
		}
	}()
	trigger := "auto"
	if manual {
		trigger = "manual"
	}
	return pre(ctx, trigger)
}

// stopNote is the user-role message a Stop hook's reason becomes.
func stopNote(reason string) string {
	return "[Stop hook] The turn was not allowed to end yet: " + strings.TrimSpace(reason)
}

// Emit delivers an event of the wiring's (e.g. hook.completed) into the
// session's stream, stamped like the agent's own with the current turn.
// Safe from any goroutine.
func (a *Agent) Emit(e Event) {
	a.mu.Lock()
	n := a.turns
	a.mu.Unlock()
	a.emit(n, e)
}

// promptHooks runs the UserPromptSubmit hooks on input: the content of
// the user message, and false when a hook dropped the prompt (t.exit and
// t.blocked are then set).
func (t *turn) promptHooks(input string) (string, bool) {
	f := t.a.opts.Hooks.PromptSubmit
	if f == nil {
		return input, true
	}
	var v PromptVerdict
	t.step("UserPromptSubmit hooks", func() { v = f(t.ctx, input) })
	if v.Block {
		t.exit = ExitPromptBlocked.Exit()
		t.blocked = strings.TrimSpace(v.Reason)
		if t.blocked == "" {
			t.blocked = "no reason given"
		}
		return input, false
	}
	if c := strings.TrimSpace(v.Context); c != "" {
		input += "\n\n" + c
	}
	return input, true
}

// stopHooks runs the Stop hooks once the turn has its text answer; it
// reports true when a hook made the turn go on (the answer stays in the
// history, followed by the hook's reason as a user note).
func (t *turn) stopHooks() bool {
	f := t.a.opts.Hooks.Stop
	if f == nil || t.stopContinues >= MaxStopContinues || t.stopped() {
		return false
	}
	var reason string
	t.step("Stop hooks", func() { reason = f(t.ctx, t.stopContinues > 0, t.final) })
	if strings.TrimSpace(reason) == "" || t.stopped() {
		return false
	}
	t.stopContinues++
	t.completed, t.final, t.exit = false, "", Exit{}
	t.append(providers.Message{Role: providers.RoleUser, Content: stopNote(reason)})
	t.flush()
	return true
}
