package ui

import (
	"strings"
	"testing"
	"time"

	"talaria/tools"
)

// TestDialogIgnoresAnswersRightAfterShowing: Enter, y or 1 typed for the
// composer just as a question appears do not answer it; a faint "…"
// stands in for the key hints until, after dialogArmDelay, they do.
func TestDialogIgnoresAnswersRightAfterShowing(t *testing.T) {
	d := NewDialogs()
	h := newHarness(t, withDialogs(d))
	res := approveAsync(callCtx(t), d, patchReq)
	h.showNextUnarmed(d)
	contains(t, h.screen(), "│ …")
	for _, k := range []string{"enter", "y", "1", "a", "down"} {
		h.key(k)
	}
	h.clk.advance(dialogArmDelay - time.Millisecond)
	h.key("y")
	if h.m.dialog() == nil {
		t.Fatal("a key answered the question while it was arming")
	}
	h.clk.advance(time.Millisecond)
	h.send(frameMsg{})
	contains(t, h.screen(), "↑↓ move · enter confirm · esc deny")
	h.key("enter") // the highlight moved to "allow for the session"
	if got := result(t, res); got.d != (tools.ApprovalDecision{Allow: true, Scope: tools.ScopeSession}) {
		t.Errorf("got %+v", got.d)
	}

	// An open question starts in its text input: Enter does not send
	// what was typed there by accident until it is armed.
	ask := askAsync(callCtx(t), d, "Name?")
	h.showNextUnarmed(d)
	h.typeText("ok")
	h.key("enter")
	if h.m.dialog() == nil {
		t.Fatal("enter answered the question while it was arming")
	}
	h.arm()
	h.key("enter")
	if got := result(t, ask); got.text != "ok" {
		t.Errorf("Ask = %q", got.text)
	}
}

// TestNoSessionScopeOffersNoSessionApproval: an edit the approver will
// not allow for the session (outside the working directory) is not
// offered "allow for this session".
func TestNoSessionScopeOffersNoSessionApproval(t *testing.T) {
	d := NewDialogs()
	h := newHarness(t, withDialogs(d))
	req := patchReq
	req.Summary, req.NoSessionScope = "Edit: ../other/parser.go", true
	res := approveAsync(callCtx(t), d, req)
	h.showNext(d)
	screen := h.screen()
	contains(t, screen, "1. Yes, allow once (y)", "2. No, and tell the model why (n)")
	if strings.Contains(screen, "(a)") || strings.Contains(screen, "for this session") {
		t.Errorf("session option shown:\n%s", screen)
	}
	h.key("a")
	if h.m.dialog() == nil {
		t.Fatal("a answered a request without session scope")
	}
	h.key("y")
	if got := result(t, res); !got.d.Allow || got.d.Scope != tools.ScopeOnce {
		t.Errorf("got %+v", got.d)
	}
}
