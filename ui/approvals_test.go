package ui

import (
	"testing"

	"talaria/tools"
)

// TestApprovalsCycleAndCommand: Shift+Tab steps ask → auto-edit →
// read-only → ask on the session's approver, /approvals yolo sets yolo,
// and the status line always names the mode and the sandbox.
func TestApprovalsCycleAndCommand(t *testing.T) {
	a := tools.NewApprover(tools.ApprovalAsk, nil)
	h := newHarness(t, func(o *Options) { fake(o).Approvals, o.Sandbox = a, "workspace-write" })
	h.size(100, 30)
	contains(t, h.screen(), "ask · sandbox workspace-write")
	for _, want := range []tools.ApprovalMode{tools.ApprovalAutoEdit, tools.ApprovalReadOnly, tools.ApprovalAsk} {
		h.key("shift+tab")
		if a.Mode() != want {
			t.Fatalf("after shift+tab: %s, want %s", a.Mode(), want)
		}
		contains(t, h.screen(), string(want)+" · sandbox workspace-write")
	}
	h.typeText("/approvals yolo")
	h.key("enter")
	if a.Mode() != tools.ApprovalYolo {
		t.Fatalf("/approvals yolo: %s", a.Mode())
	}
	contains(t, h.screen(), "yolo · sandbox")
	h.typeText("/approvals sometimes")
	h.key("enter")
	contains(t, h.screen(), "unknown approvals mode")
	if a.Mode() != tools.ApprovalYolo {
		t.Fatalf("a bad mode changed it: %s", a.Mode())
	}
	h.key("shift+tab")
	if a.Mode() != tools.ApprovalAsk {
		t.Fatalf("shift+tab from yolo: %s", a.Mode())
	}
}
