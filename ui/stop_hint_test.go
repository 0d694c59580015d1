package ui

import (
	"strings"
	"testing"
	"time"

	"talaria/loop"
)

// TestStopHintGoesWhenTheCallEnds: "stopping NAME…" goes as soon as the
// call it stops has ended, not two seconds after x was pressed (issue 24
// defect 13); another call of that name ending leaves it.
func TestStopHintGoesWhenTheCallEnds(t *testing.T) {
	ca := cancelAgent{fakeAgent: &fakeAgent{}, ids: make(chan string, 4)}
	h := newHarness(t, func(o *Options) { fake(o).Agent, fake(o).OnCancelCall = ca, ca.CancelCall })
	h.size(100, 30)
	h.events(turnStarted(1, "go"),
		&loop.ToolsPlanned{Header: hdr(loop.TypeToolsPlanned, 1, 0), Segments: []loop.PlannedSegment{
			{Mode: "parallel", Calls: []loop.ToolCallInfo{{ID: "a", Name: "terminal"}, {ID: "b", Name: "terminal"}}}}},
		&loop.ToolStarted{Header: hdr(loop.TypeToolStarted, 1, 0), ID: "a", Name: "terminal"},
		&loop.ToolStarted{Header: hdr(loop.TypeToolStarted, 1, 0), ID: "b", Name: "terminal"},
	)
	h.key("ctrl+down")
	h.key("x") // just started: stops at once
	select {
	case <-ca.ids:
	case <-time.After(5 * time.Second):
		t.Fatal("x did not stop the focused call")
	}
	if !strings.Contains(h.screen(), "stopping terminal…") {
		t.Fatalf("no stopping hint:\n%s", h.screen())
	}
	if h.m.live.focus != "a" {
		t.Fatalf("focus %q, want a", h.m.live.focus)
	}
	h.events(&loop.ToolCompleted{Header: hdr(loop.TypeToolCompleted, 1, 100*time.Millisecond), ID: "b", Name: "terminal", OK: true, Output: "done"})
	if !strings.Contains(h.screen(), "stopping terminal…") {
		t.Fatalf("the hint went when another call ended:\n%s", h.screen())
	}
	h.events(&loop.ToolCompleted{Header: hdr(loop.TypeToolCompleted, 1, 150*time.Millisecond), ID: "a", Name: "terminal", Cancelled: true, Output: "stopped"})
	if s := h.screen(); strings.Contains(s, "stopping terminal") {
		t.Fatalf("the hint stays after the call ended:\n%s", s)
	}
}

// TestCancelHintGoesWhenTheCallEnds: the same for /cancel ID.
func TestCancelHintGoesWhenTheCallEnds(t *testing.T) {
	ca := cancelAgent{fakeAgent: &fakeAgent{}, ids: make(chan string, 4)}
	h := newHarness(t, func(o *Options) { fake(o).Agent, fake(o).OnCancelCall = ca, ca.CancelCall })
	h.size(100, 30)
	h.events(turnStarted(1, "go"),
		&loop.ToolStarted{Header: hdr(loop.TypeToolStarted, 1, 0), ID: "call_7", Name: "terminal"},
	)
	h.typeText("/cancel call_7")
	h.key("enter")
	select {
	case <-ca.ids:
	case <-time.After(5 * time.Second):
		t.Fatal("/cancel did not stop the call")
	}
	if !strings.Contains(h.screen(), "stopping terminal (call_7)…") {
		t.Fatalf("no stopping hint:\n%s", h.screen())
	}
	h.events(&loop.ToolCompleted{Header: hdr(loop.TypeToolCompleted, 1, 100*time.Millisecond), ID: "call_7", Name: "terminal", Cancelled: true, Output: "stopped"})
	if s := h.screen(); strings.Contains(s, "stopping terminal") {
		t.Fatalf("the hint stays after the call ended:\n%s", s)
	}
}
