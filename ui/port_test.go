package ui

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
)

// barePort offers turns and nothing else: its embedded Port is nil, so a
// call to any method it does not define panics and fails the test. It
// counts how often the screen asks what it offers.
type barePort struct {
	Port
	turns  *fakeAgent
	probes atomic.Int32
}

func (b *barePort) Start(ctx context.Context, input string) error { return b.turns.Start(ctx, input) }
func (b *barePort) Steer(text string) int                         { return b.turns.Steer(text) }
func (b *barePort) Interrupt()                                    { b.turns.Interrupt() }
func (b *barePort) MCPStarting() []string                         { return nil }
func (b *barePort) MCPNotices() []string                          { return nil }
func (b *barePort) Abilities() Abilities                          { b.probes.Add(1); return Abilities{} }

// TestPortOffersOnlyWhatItSays: a port whose Abilities offers nothing is
// asked once what it offers and never for anything else (no ability is
// found by trying, nor by type assertion): each command that needs more
// says it is not available, and turns still run.
func TestPortOffersOnlyWhatItSays(t *testing.T) {
	bp := &barePort{turns: &fakeAgent{}}
	h := newHarness(t, func(o *Options) { o.Port = bp })
	h.size(100, 60)
	for _, c := range []string{"/new", "/resume abc", "/sessions", "/model gpt-5", "/compress",
		"/rewind", "/undo", "/diff", "/timeline", "/rename t", "/fork", "/skills", "/agents",
		"/approvals", "/approvals yolo", "/status", "!ls", "/model"} {
		h.command(c)
	}
	h.key("shift+tab")
	h.press("esc")
	h.press("esc")
	h.typeText("/re") // the completion popup lists no custom commands
	h.key("ctrl+u")
	scr := h.screen()
	for _, want := range []string{"/new is not available yet", "/sessions is not available yet", "/compress is not available yet",
		"/rewind is not available yet", "/diff is not available yet", "/timeline is not available yet",
		"/rename is not available here", "/fork is not available here", "/skills is not available here",
		"/agents is not available here", "approvals cannot be changed here", "!ls: this session cannot run shell commands"} {
		if !strings.Contains(scr, want) {
			t.Errorf("missing %q in:\n%s", want, scr)
		}
	}
	h.typeText("hello")
	h.settle(keyMsg("enter"))
	if got := bp.turns.got(); len(got) != 1 || got[0] != "run:hello" {
		t.Errorf("turns: %q", got)
	}
	if n := bp.probes.Load(); n != 1 {
		t.Errorf("Abilities was read %d times, want once", n)
	}
}
