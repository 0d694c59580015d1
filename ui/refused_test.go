package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"talaria/loop"
)

// TestSessionCommandsRefusedDuringTurn: /new, /model and /compress during
// a turn say they were refused and how to get them run; none of them
// promises to run later, and Tab really queues one for after the turn.
func TestSessionCommandsRefusedDuringTurn(t *testing.T) {
	ran := map[string]int{}
	h := newHarness(t, func(o *Options) {
		fake(o).OnNew = func(context.Context) (Session, error) {
			ran["new"]++
			return Session{ID: "20261201_153012_3fa9c1"}, nil
		}
		fake(o).OnCompress = func(context.Context) error { ran["compress"]++; return nil }
		fake(o).OnModel = func(context.Context, string) (string, string, error) { ran["model"]++; return "openai", "gpt-5", nil }
	})
	h.size(100, 40)
	h.startBusy()
	for _, c := range []string{"/new", "/model gpt-5", "/compress"} {
		h.command(c)
		name := strings.Fields(c)[0]
		contains(t, h.screen(), name+" refused: a turn is running · interrupt it first")
	}
	if strings.Contains(h.screen(), "waits for") {
		t.Fatalf("a refusal promises to wait:\n%s", h.screen())
	}
	h.typeText("/new")
	h.key("esc") // closes the popup
	h.key("tab")
	h.endTurn(1, "")
	if len(ran) != 1 || ran["new"] != 1 {
		t.Fatalf("after the turn ran %v, want only the queued /new", ran)
	}
}

// TestNothingToCompressIsNotAFailure: /compress that finds nothing to do
// shows its reason as information, not as an error.
func TestNothingToCompressIsNotAFailure(t *testing.T) {
	h := newHarness(t, func(o *Options) {
		fake(o).OnCompress = func(context.Context) error {
			return fmt.Errorf("%w: the whole history (6 messages) is kept verbatim", loop.ErrNothingToCompress)
		}
	})
	h.command("/compress")
	s := h.screen()
	contains(t, s, "• /compress: nothing to compress yet: the whole history (6 messages)")
	if strings.Contains(s, "✗ /compress") {
		t.Fatalf("shown as a failure:\n%s", s)
	}
}
