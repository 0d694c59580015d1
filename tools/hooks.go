package tools

import (
	"context"
	"fmt"
	"strings"
)

// The seam between tool calls and the user's hooks (PreToolUse,
// PostToolUse). tools knows nothing of how hooks are configured or run:
// the session's wiring fills these functions from its hook runner.

// HookPermission is a PreToolUse hook's permission decision.
type HookPermission string

// Hook permission decisions, weakest first. Across hooks the strongest
// wins (deny beats ask beats allow); the runner combines them.
const (
	// HookNone leaves the call to the approval policy.
	HookNone HookPermission = ""
	// HookAllow skips the approval dialog. It never lifts a protected
	// path (.git, $TALARIA_HOME), the read-only mode, the sandbox or a
	// deny rule: those still decide, before the dialog would.
	HookAllow HookPermission = "allow"
	// HookAsk forces the approval dialog, whatever the mode or the
	// session allow-list say (headless, with nobody to ask, the call is
	// refused as any call needing approval is).
	HookAsk HookPermission = "ask"
	// HookDeny blocks the call (the verdict's Block is set with it).
	HookDeny HookPermission = "deny"
)

// HookVerdict is what the PreToolUse hooks decided for one call.
type HookVerdict struct {
	// Block: the tool does not run and the model reads Reason as the
	// call's error result (a hook exited 2, returned decision "block" or
	// permissionDecision "deny").
	Block bool
	// Reason explains a block to the model.
	Reason string
	// Permission is allow or ask (or none); see HookPermission.
	Permission HookPermission
	// PermissionReason explains Permission (shown in the dialog's summary
	// for ask).
	PermissionReason string
}

// PreToolHook runs the PreToolUse hooks for one call whose arguments
// decoded; it must return once ctx ends.
type PreToolHook func(ctx context.Context, c BatchCall) HookVerdict

// PostToolHook runs the PostToolUse hooks for one call that ran, with its
// result; what it returns (additionalContext, a block's reason) is added
// to the result the model reads, marked by HookNote. It must return once
// ctx ends.
type PostToolHook func(ctx context.Context, c BatchCall, r Result) (note string)

// BlockedByHook is the result the model reads for a call a PreToolUse
// hook blocked.
func BlockedByHook(tool, reason string) Result {
	reason = strings.TrimSpace(reason)
	if reason == "" {
		reason = "no reason given"
	}
	return Errorf("%s was not run: a PreToolUse hook blocked it: %s", tool, reason)
}

// HookNote marks text a PostToolUse hook added to a tool's result, so the
// model can tell it from the tool's own output.
func HookNote(text string) string {
	text = strings.TrimSpace(text)
	if text == "" {
		return ""
	}
	return "\n\n[PostToolUse hook]\n" + text
}

type hookPermissionKey struct{}

// WithHookPermission returns ctx carrying a PreToolUse hook's permission
// decision for the approval check of that one call (Approver.Check reads
// it with HookPermissionFrom).
func WithHookPermission(ctx context.Context, p HookPermission) context.Context {
	if p == HookNone {
		return ctx
	}
	return context.WithValue(ctx, hookPermissionKey{}, p)
}

// HookPermissionFrom returns the hook permission ctx carries (HookNone
// when none).
func HookPermissionFrom(ctx context.Context) HookPermission {
	p, _ := ctx.Value(hookPermissionKey{}).(HookPermission)
	return p
}

// Invalid returns the error result the tool would give for arguments it
// cannot decode (the strict decoding the approval check does first), or
// nil when they decode: PreToolUse hooks run only for calls that decode,
// as in Claude Code.
func (a *Approver) Invalid(toolName, args string) *Result {
	v := a.classify(toolName, args)
	if v.class != classInvalid {
		return nil
	}
	r := v.invalid
	return &r
}

// hookAsk puts a call a PreToolUse hook asked about to the user, whatever
// the mode and the session allow-list say; the answer covers this call
// only (the hook asks again next time). Headless, nobody can answer: the
// call is refused as any call needing approval is.
func (a *Approver) hookAsk(ctx context.Context, toolName string, req ApprovalRequest) (bool, Result) {
	if a.Prompt == nil {
		return false, Errorf("%s was not run: a PreToolUse hook asked for the user's approval (%s) and no user is available to approve it (headless run). "+
			"Continue with other tools or explain what you would do.", toolName, req.Summary)
	}
	req.NoSessionScope = true
	a.promptMu.Lock()
	defer a.promptMu.Unlock()
	if ctx.Err() != nil {
		return false, Errorf("%s was not run: the turn was cancelled while it waited for approval", toolName)
	}
	d, err := a.Prompt(ctx, req)
	switch {
	case err != nil && ctx.Err() != nil:
		return false, Errorf("%s was not run: the turn was cancelled while it waited for approval", toolName)
	case err != nil:
		return false, Errorf("%s was not run: asking for approval failed: %v", toolName, err)
	case !d.Allow:
		msg := fmt.Sprintf("The user denied this %s call (%s).", toolName, req.Summary)
		if r := strings.TrimSpace(d.Reason); r != "" {
			msg += " Their reason: " + r
		}
		return false, Result{Output: msg + " Do not retry the same call; change your approach, or use clarify to ask what they want.", IsError: true}
	}
	return true, Result{}
}
