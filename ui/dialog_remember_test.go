package ui

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"talaria/tools"
)

// checkAsync runs a.Check for a terminal command in the background.
func checkAsync(a *tools.Approver, cmd string) chan bool {
	done := make(chan bool, 1)
	go func() {
		ok, _ := a.Check(context.Background(), "terminal", `{"command":"`+cmd+`"}`)
		done <- ok
	}()
	return done
}

// TestApprovalRememberPrefixSaved: the dialog offers this exact command
// (a), its prefix (p) and every command (t) with their keys; s toggles
// saving and shows the rule; p with saving on writes Bash(touch:*) through
// SaveRule, and a later touch runs without a dialog.
func TestApprovalRememberPrefixSaved(t *testing.T) {
	d := NewDialogs()
	h := newHarness(t, withDialogs(d))
	h.size(100, 30)
	a := tools.NewApprover(tools.ApprovalAsk, d.Approve)
	var mu sync.Mutex
	var saved []string
	a.SaveRule = func(rule string) error {
		mu.Lock()
		defer mu.Unlock()
		saved = append(saved, rule)
		return nil
	}
	done := checkAsync(a, "touch notes.txt")
	h.showNext(d)
	s := h.screen()
	contains(t, s, "1. Yes, allow once (y)", "this exact command (a)", "commands starting with touch (p)", "every command (t)", "[ ] s: also save to .talaria/config.yaml")
	h.key("s")
	contains(t, h.screen(), "[x] s: also save", "→ saves Bash(touch:*)", "→ saves terminal")
	h.settle(keyMsg("p"))
	if !<-done {
		t.Fatal("the approved call was refused")
	}
	mu.Lock()
	got := append([]string(nil), saved...)
	mu.Unlock()
	if len(got) != 1 || got[0] != "Bash(touch:*)" {
		t.Fatalf("saved %q", got)
	}
	contains(t, h.screen(), "saved Bash(touch:*)")
	// A later matching command runs unasked; another one still asks.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second) // a dialog would wait: it must not come
	defer cancel()
	if ok, _ := a.Check(ctx, "terminal", `{"command":"touch other.txt"}`); !ok {
		t.Error("a command the remembered prefix covers was refused")
	}
	done = checkAsync(a, "rm notes.txt")
	r := h.showNext(d)
	if !strings.Contains(r.approval.Summary, "rm notes.txt") {
		t.Errorf("asked for %q", r.approval.Summary)
	}
	h.key("n")
	h.settle(keyMsg("enter"))
	if <-done {
		t.Error("rm ran after a denial")
	}
}

// TestApprovalRememberSessionOnly: without saving, the exact command is
// remembered for the session and nothing is written; a compound command
// offers no prefix and, saving on, says it holds for the session only.
func TestApprovalRememberSessionOnly(t *testing.T) {
	d := NewDialogs()
	h := newHarness(t, withDialogs(d))
	h.size(100, 30)
	a := tools.NewApprover(tools.ApprovalAsk, d.Approve)
	a.SaveRule = func(rule string) error { t.Errorf("saved %q", rule); return nil }
	done := checkAsync(a, "touch a && touch b")
	h.showNext(d)
	s := h.screen()
	if strings.Contains(s, "(p)") {
		t.Errorf("a compound command offered a prefix:\n%s", s)
	}
	h.key("s")
	contains(t, h.screen(), "this exact command (this session only: not one plain command)")
	h.key("s") // off again
	h.settle(keyMsg("a"))
	if !<-done {
		t.Fatal("refused")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if ok, _ := a.Check(ctx, "terminal", `{"command":"touch a && touch b"}`); !ok {
		t.Error("the exact command remembered for the session asked again")
	}
}
