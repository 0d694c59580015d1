package tools

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// countingPrompt answers allow and counts the dialogs it was asked.
type countingPrompt struct {
	n    int
	reqs []ApprovalRequest
}

func (c *countingPrompt) prompt(_ context.Context, r ApprovalRequest) (ApprovalDecision, error) {
	c.n++
	c.reqs = append(c.reqs, r)
	return ApprovalDecision{Allow: true, Scope: ScopeSession}, nil
}

// A hook's allow skips the dialog of an ordinary call, but a protected
// path still asks and the read-only mode still refuses.
func TestHookAllowSkipsDialogButNotProtection(t *testing.T) {
	cwd := t.TempDir()
	allow := WithHookPermission(context.Background(), HookAllow)
	p := &countingPrompt{}
	a := NewApprover(ApprovalAsk, p.prompt)
	a.Cwd = cwd
	if ok, _ := a.Check(allow, "terminal", `{"command":"make deploy"}`); !ok || p.n != 0 {
		t.Fatalf("allow: ok=%v, %d dialogs", ok, p.n)
	}
	if ok, _ := a.Check(context.Background(), "terminal", `{"command":"make deploy"}`); !ok || p.n != 1 {
		t.Fatalf("without the hook the call asks: ok=%v, %d dialogs", ok, p.n)
	}
	git := filepath.Join(cwd, ".git", "config")
	if _, _ = a.Check(allow, "write_file", `{"path":"`+git+`","content":"x"}`); p.n != 2 || !p.reqs[1].Protected {
		t.Fatalf("a hook's allow lifted the protected path: %d dialogs", p.n)
	}
	h := NewApprover(ApprovalAsk, nil) // headless
	h.Cwd = cwd
	if ok, _ := h.Check(allow, "write_file", `{"path":"`+git+`","content":"x"}`); ok {
		t.Fatal("headless: a hook's allow lifted the protected path")
	}
	ro := NewApprover(ApprovalReadOnly, nil)
	if ok, res := ro.Check(allow, "terminal", `{"command":"make deploy"}`); ok || !strings.Contains(res.Output, "read-only") {
		t.Fatalf("a hook's allow lifted the read-only mode: %v %q", ok, res.Output)
	}
	if ok, res := a.Check(allow, "terminal", `{"command":""}`); ok || !res.IsError {
		t.Fatalf("a hook's allow let invalid arguments through: %v %q", ok, res.Output)
	}
}

// A hook's ask forces the dialog under yolo, for a read-only tool and
// for a call allowed for the session; headless it is refused.
func TestHookAskForcesDialog(t *testing.T) {
	ask := WithHookPermission(context.Background(), HookAsk)
	p := &countingPrompt{}
	a := NewApprover(ApprovalYolo, p.prompt)
	if ok, _ := a.Check(ask, "terminal", `{"command":"ls"}`); !ok || p.n != 1 || !p.reqs[0].NoSessionScope {
		t.Fatalf("yolo: ok=%v, %d dialogs", ok, p.n)
	}
	if ok, _ := a.Check(ask, "read_file", `{"path":"a"}`); !ok || p.n != 2 {
		t.Fatalf("read-only tool: ok=%v, %d dialogs", ok, p.n)
	}
	b := NewApprover(ApprovalAsk, p.prompt)
	_, _ = b.Check(context.Background(), "terminal", `{"command":"make"}`) // allowed for the session
	n := p.n
	if _, _ = b.Check(context.Background(), "terminal", `{"command":"make"}`); p.n != n {
		t.Fatal("the session allow-list did not hold")
	}
	if _, _ = b.Check(ask, "terminal", `{"command":"make"}`); p.n != n+1 {
		t.Fatal("a hook's ask did not bypass the session allow-list")
	}
	h := NewApprover(ApprovalYolo, nil)
	if ok, res := h.Check(ask, "terminal", `{"command":"ls"}`); ok || !strings.Contains(res.Output, "PreToolUse hook asked") {
		t.Fatalf("headless ask: %v %q", ok, res.Output)
	}
	denier := NewApprover(ApprovalYolo, func(context.Context, ApprovalRequest) (ApprovalDecision, error) {
		return ApprovalDecision{Reason: "not now"}, nil
	})
	if ok, res := denier.Check(ask, "terminal", `{"command":"ls"}`); ok || !strings.Contains(res.Output, "not now") {
		t.Fatalf("denied ask: %v %q", ok, res.Output)
	}
}

func TestHookInvalidIsTheStrictDecoding(t *testing.T) {
	a := NewApprover(ApprovalAsk, nil)
	if r := a.Invalid("terminal", `{"command":"ls","bogus":1}`); r == nil || !r.IsError {
		t.Fatalf("unknown key: %v", r)
	}
	if r := a.Invalid("terminal", `{"command":"ls"}`); r != nil {
		t.Fatalf("valid: %v", r)
	}
	if got := BlockedByHook("terminal", " no rm \n"); !got.IsError || !strings.HasSuffix(got.Output, "blocked it: no rm") {
		t.Fatalf("%q", got.Output)
	}
	if HookNote("  ") != "" || HookNote("x") != "\n\n[PostToolUse hook]\nx" {
		t.Fatal("HookNote")
	}
}
