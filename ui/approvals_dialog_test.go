package ui

import (
	"context"
	"strings"
	"testing"

	"talaria/tools"
)

// TestOutsideSandboxApproval: the approver's offer to run a command the
// sandbox stopped once outside it reads as such, shows the command whole
// and offers no session-wide approval.
func TestOutsideSandboxApproval(t *testing.T) {
	d := NewDialogs()
	h := newHarness(t, withDialogs(d))
	h.size(80, 24)
	a := tools.NewApprover(tools.ApprovalAsk, d.Approve)
	done := make(chan bool, 1)
	go func() { done <- a.Escalate(context.Background(), "terminal", "npm install --global typescript") }()
	h.showNext(d)
	screen := h.screen()
	contains(t, screen, "Run once outside the sandbox (the sandbox stopped it)", "npm install --global", "typescript", "1. Yes, allow once (y)")
	if strings.Contains(screen, "(a)") {
		t.Errorf("session option offered:\n%s", screen)
	}
	h.key("y")
	if !<-done {
		t.Error("approved, but Escalate said no")
	}
}
