package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestApprovalSandboxAsksUnknownCommands: in ask mode with the sandbox,
// every command of issue 29 item 3 (and its neighbours) asks, none is
// allowed for the session when destructive, and the everyday commands of
// issue29Safe still run unasked, in ask and in auto-edit.
func TestApprovalSandboxAsksUnknownCommands(t *testing.T) {
	dir := knownSafeTree(t)
	check := func(mode ApprovalMode, cmd string) (bool, *recordingPrompt) {
		rp := &recordingPrompt{d: ApprovalDecision{Allow: false}}
		a := NewApprover(mode, rp.prompt)
		a.Cwd, a.Sandboxed = dir, true
		args, _ := json.Marshal(map[string]string{"command": cmd})
		ok, _ := a.Check(context.Background(), "terminal", string(args))
		return ok, rp
	}
	for _, mode := range []ApprovalMode{ApprovalAsk, ApprovalAutoEdit} {
		for _, cmd := range issue29Unsafe {
			ok, rp := check(mode, cmd)
			if ok || rp.count() > 1 {
				t.Errorf("%s: %q ran unasked (asked %d)", mode, cmd, rp.count())
			}
		}
		for _, cmd := range issue29Safe {
			if ok, rp := check(mode, cmd); !ok || rp.count() != 0 {
				t.Errorf("%s: %q asked (%d) or was refused", mode, cmd, rp.count())
			}
		}
	}
	// The request says why the command asks.
	_, rp := check(ApprovalAsk, `git checkout-index -f -a`)
	if rp.count() != 1 || !rp.reqs[0].Destructive {
		t.Errorf("git checkout-index: %+v", rp.reqs)
	}
	_, rp = check(ApprovalAsk, `make`)
	if rp.count() != 1 || rp.reqs[0].Destructive || rp.reqs[0].NoSessionScope || !strings.Contains(rp.reqs[0].Summary, "[not known safe: make is not on the known-safe list]") {
		t.Errorf("make: %+v", rp.reqs)
	}
	// Headless, the refusal says it needs approval.
	a := NewApprover(ApprovalAsk, nil)
	a.Cwd, a.Sandboxed = dir, true
	if ok, d := a.Check(context.Background(), "terminal", `{"command":"awk 'BEGIN{system(\"rm -f .env\")}'"}`); ok || !strings.Contains(d.Output, "needs the user's approval") {
		t.Errorf("headless awk: %v %q", ok, d.Output)
	}
}

// TestApprovalSandboxWorkdir: a write redirection is judged in the
// directory the command runs in (the workdir argument).
func TestApprovalSandboxWorkdir(t *testing.T) {
	dir := knownSafeTree(t) // sub/x exists, x does not
	a := NewApprover(ApprovalAsk, nil)
	a.Cwd, a.Sandboxed = dir, true
	if ok, d := a.Check(context.Background(), "terminal", `{"command":"echo hi > x"}`); !ok {
		t.Errorf("a new file in the working directory: %s", d.Output)
	}
	if ok, _ := a.Check(context.Background(), "terminal", `{"command":"echo hi > x","workdir":"sub"}`); ok {
		t.Error("an overwrite of sub/x ran unasked")
	}
}
