package ui

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"talaria/loop"
	"talaria/providers"
)

// fakeRewinds is the wiring's side of /rewind: it records requests and
// refuses a file on the first code rewind when refuse is set.
type fakeRewinds struct {
	mu     sync.Mutex
	reqs   []RewindRequest
	refuse bool
}

// fill offers the rewinds on p.
func (f *fakeRewinds) fill(p *fakePort) {
	p.OnRewindPoints = func(context.Context) ([]RewindPoint, error) {
		return []RewindPoint{
			{Turn: 2, Input: "second ask", Files: []string{"changed main.go", "created new.go"}},
			{Turn: 1, Input: "first ask"},
		}, nil
	}
	p.OnRewind = func(_ context.Context, req RewindRequest) (RewindResult, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.reqs = append(f.reqs, req)
		res := RewindResult{Restored: 2}
		if f.refuse && req.Code && !req.Force {
			res.Refused = []string{"main.go"}
		}
		if req.Conversation {
			res.Session = &Session{ID: "0a1b2c3d4e5f", History: []providers.Message{{Role: providers.RoleUser, Content: "first ask"}}}
		}
		return res, nil
	}
	p.OnDiff = func(context.Context) (string, error) {
		var b strings.Builder
		b.WriteString("diff --talaria a/main.go b/main.go\n--- a/main.go\n+++ b/main.go\n@@ -1,1 +1,1 @@\n-old line\n+new line\n")
		for i := range 60 {
			b.WriteString(" context " + strings.Repeat("x", i%7) + "\n")
		}
		b.WriteString("+the very last line\n")
		return b.String(), nil
	}
}

func (f *fakeRewinds) got() []RewindRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]RewindRequest(nil), f.reqs...)
}

// press sends a key and feeds back what its commands return.
func (h *harness) press(name string) { h.settle(keyMsg(name)) }

func TestEscEscOpensRewindListAndRewindsBoth(t *testing.T) {
	f := &fakeRewinds{}
	h := newHarness(t, func(o *Options) { f.fill(fake(o)) })
	h.press("esc")
	if h.m.rw.open() {
		t.Fatal("one esc opened the rewind list")
	}
	h.clk.advance(100 * time.Millisecond)
	h.press("esc")
	if h.m.rw.modal == nil {
		t.Fatalf("esc esc did not open the rewind list:\n%s", h.screen())
	}
	s := h.screen()
	contains(t, s, "Rewind", "turn 2   second ask", "changed main.go · created new.go", "turn 1   first ask", "no file changes")
	if strings.Index(s, "second ask") > strings.Index(s, "first ask") {
		t.Error("the list is not newest first")
	}
	h.press("enter")
	contains(t, h.screen(), "Rewind to before turn 2", "1. Code and conversation", "2. Conversation only", "3. Code only")
	h.press("1")
	got := f.got()
	if len(got) != 1 || got[0] != (RewindRequest{Turn: 2, Code: true, Conversation: true}) {
		t.Fatalf("rewind requests: %+v", got)
	}
	if h.m.comp.value() != "second ask" {
		t.Errorf("composer = %q, want the rewound message back", h.m.comp.value())
	}
	contains(t, h.screen(), "rewound to before turn 2: conversation · 2 files restored")
	if h.m.rw.open() || h.m.pending != "" {
		t.Error("the rewind did not settle")
	}
}

func TestEscEscNeedsQuickSecondPressAndEmptyComposer(t *testing.T) {
	f := &fakeRewinds{}
	h := newHarness(t, func(o *Options) { f.fill(fake(o)) })
	h.press("esc")
	h.clk.advance(2 * time.Second)
	h.press("esc")
	if h.m.rw.open() {
		t.Fatal("two slow escs opened the rewind list")
	}
	h.typeText("draft")
	h.press("esc") // clears the draft
	h.press("esc")
	if h.m.rw.open() {
		t.Fatal("the esc that cleared a draft counted toward esc esc")
	}
}

func TestRewindRefusedWhileTurnRunsThenWorksAfterInterrupt(t *testing.T) {
	f := &fakeRewinds{}
	h := newHarness(t, func(o *Options) { f.fill(fake(o)) })
	h.startBusy()
	h.events(turnStarted(1, "first"))
	h.typeText("/rewind")
	h.press("enter")
	contains(t, h.screen(), "interrupt it first")
	if h.m.rw.open() {
		t.Fatal("/rewind opened during a turn")
	}
	h.press("esc") // interrupts
	h.events(&loop.TurnFinished{Header: hdr(loop.TypeTurnFinished, 1, time.Second), ExitReason: loop.ExitInterruptedByUser.Exit()})
	if h.m.turn.busy {
		t.Fatal("still busy after the interrupt")
	}
	h.typeText("/rewind")
	h.press("enter")
	if h.m.rw.modal == nil {
		t.Fatalf("/rewind after the interrupt did not open:\n%s", h.screen())
	}
}

func TestRewindOutsideChangeAsksBeforeOverwriting(t *testing.T) {
	f := &fakeRewinds{refuse: true}
	h := newHarness(t, func(o *Options) { f.fill(fake(o)) })
	h.typeText("/rewind 2")
	h.press("enter")
	h.press("3") // code only
	contains(t, h.screen(), "1 file changed outside talaria", "main.go", "Overwrite them")
	h.press("y")
	got := f.got()
	if len(got) != 2 || got[1] != (RewindRequest{Turn: 2, Code: true, Force: true}) {
		t.Fatalf("requests: %+v", got)
	}
	// Declining leaves the files.
	if h.m.comp.value() != "second ask" {
		t.Fatalf("composer = %q", h.m.comp.value())
	}
	h.m.comp.clear()
	h.typeText("/rewind 2")
	h.press("enter")
	h.press("3")
	h.press("n")
	if n := len(f.got()); n != 3 {
		t.Fatalf("declining still rewound: %d requests", n)
	}
	contains(t, h.screen(), "kept the files changed outside talaria")
}

func TestUndoRewindsBothBeforeTheLastTurn(t *testing.T) {
	f := &fakeRewinds{}
	h := newHarness(t, func(o *Options) { f.fill(fake(o)) })
	h.typeText("/undo")
	h.press("enter")
	if got := f.got(); len(got) != 1 || got[0] != (RewindRequest{Turn: 2, Code: true, Conversation: true}) {
		t.Fatalf("/undo requests: %+v", got)
	}
}

func TestDiffScrollsAndCloses(t *testing.T) {
	f := &fakeRewinds{}
	h := newHarness(t, func(o *Options) { f.fill(fake(o)) })
	h.typeText("/diff")
	h.press("enter")
	s := h.screen()
	contains(t, s, "Changes to the working tree", "-old line", "+new line", "lines 1-")
	if strings.Contains(s, "the very last line") {
		t.Fatal("a 66-line diff fit on 24 rows")
	}
	h.press("G")
	contains(t, h.screen(), "+the very last line")
	h.press("esc")
	if h.m.rw.open() {
		t.Fatal("esc did not close the diff")
	}
}

func TestFastEscEscArrivesAsAltEsc(t *testing.T) {
	f := &fakeRewinds{}
	h := newHarness(t, func(o *Options) { f.fill(fake(o)) })
	if keyMsg("alt+esc").String() != "alt+esc" {
		t.Fatalf("key %q", keyMsg("alt+esc").String())
	}
	h.press("alt+esc")
	if h.m.rw.modal == nil {
		t.Fatal("a fast esc esc did not open the rewind list")
	}
}
