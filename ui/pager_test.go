package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"talaria/loop"
)

func TestPagerShowsTheHiddenPartOfALongOutput(t *testing.T) {
	h := newHarness(t)
	h.size(80, 24)
	var out strings.Builder
	for i := range 100 {
		fmt.Fprintf(&out, "result line %03d\n", i)
	}
	h.events(turnStarted(1, "go"),
		&loop.ToolStarted{Header: hdr(loop.TypeToolStarted, 1, 0), ID: "x", Name: "terminal", Arguments: `{"command":"seq"}`},
		&loop.ToolCompleted{Header: hdr(loop.TypeToolCompleted, 1, time.Second), ID: "x", Name: "terminal", OK: true, DurationMS: 900, Output: out.String() + "exit code: 0"},
		&loop.ToolCompleted{Header: hdr(loop.TypeToolCompleted, 1, time.Second), ID: "y", Name: "read_file", OK: false, DurationMS: 1,
			Output: "Error: read_file: " + strings.Repeat("this error goes on and on ", 12) + "FINAL-WORD"},
	)
	s := h.screen()
	if strings.Contains(s, "result line 007") {
		t.Fatal("the card shows the hidden part already")
	}
	contains(t, s, "ctrl+t full output", "ctrl+t shows the rest")
	h.key("ctrl+t")
	contains(t, h.screen(), "pager · lines", "FINAL-WORD")
	h.key("/")
	h.typeText("line 007")
	h.key("enter")
	s = h.screen()
	contains(t, s, "result line 007", `"line 007" 1/1`)
	h.key("g")
	contains(t, h.screen(), "› go", `"command": "seq"`)
	h.key("q")
	if h.m.pager != nil || strings.Contains(h.screen(), "pager · lines") {
		t.Fatal("q did not close the pager")
	}
}

// cancelAgent is a fake agent that can stop one call.
type cancelAgent struct {
	*fakeAgent
	ids chan string
}

func (c cancelAgent) CancelCall(id string) bool { c.ids <- id; return true }

func TestFocusedLaneStopsOnlyItsCall(t *testing.T) {
	ca := cancelAgent{fakeAgent: &fakeAgent{}, ids: make(chan string, 4)}
	h := newHarness(t, func(o *Options) { fake(o).Agent, fake(o).OnCancelCall = ca, ca.CancelCall })
	h.size(100, 30)
	h.events(turnStarted(1, "go"),
		&loop.ToolsPlanned{Header: hdr(loop.TypeToolsPlanned, 1, 0), Segments: []loop.PlannedSegment{
			{Mode: "parallel", Calls: []loop.ToolCallInfo{{ID: "a", Name: "slow"}, {ID: "b", Name: "slow"}, {ID: "c", Name: "slow"}}}}},
		&loop.ToolStarted{Header: hdr(loop.TypeToolStarted, 1, 0), ID: "a", Name: "slow"},
		&loop.ToolStarted{Header: hdr(loop.TypeToolStarted, 1, 0), ID: "b", Name: "slow"},
		&loop.ToolStarted{Header: hdr(loop.TypeToolStarted, 1, 0), ID: "c", Name: "slow"},
	)
	h.key("ctrl+down")
	h.key("ctrl+down")
	if h.m.live.focus != "b" || !strings.Contains(h.screen(), "› ⠋ slow") && !strings.Contains(h.screen(), "› ") {
		t.Fatalf("focus %q", h.m.live.focus)
	}
	h.clk.advance(10 * time.Second)
	h.key("x") // long-running: asks first
	select {
	case id := <-ca.ids:
		t.Fatalf("stopped %s without confirmation", id)
	default:
	}
	contains(t, h.screen(), "press x again to stop slow")
	h.key("x")
	select {
	case id := <-ca.ids:
		if id != "b" {
			t.Fatalf("stopped %s, want b", id)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("x did not stop the focused call")
	}
	h.events(&loop.ToolCompleted{Header: hdr(loop.TypeToolCompleted, 1, 10*time.Second), ID: "b", Name: "slow", Cancelled: true, Output: "[The user stopped this slow call after 10s]"})
	if h.m.live.focus != "" {
		t.Fatal("focus stays on a finished call")
	}
	h.typeText("x")
	if !strings.Contains(h.m.comp.value(), "x") {
		t.Fatal("without a focus, x is typed into the composer")
	}
}

// A call the approval refused is named denied in the pager, as on its
// card.
func TestPagerNamesADeniedCall(t *testing.T) {
	h := newHarness(t)
	h.size(80, 24)
	h.events(turnStarted(1, "go"),
		&loop.ToolCompleted{Header: hdr(loop.TypeToolCompleted, 1, time.Second), ID: "w1", Name: "write_file", Denied: true,
			Output: "Error: The user denied this write_file call."},
	)
	contains(t, h.screen(), "denied")
	h.key("ctrl+t")
	contains(t, h.screen(), "⚙ write_file · w1 · denied ·")
}

// TestPagerFollowsRunningCommand (issue 24, defect 9): the pager opened
// while a command runs shows its output as it comes, not a snapshot of
// the moment it opened; a reader at the end stays at the end.
func TestPagerFollowsRunningCommand(t *testing.T) {
	h := newHarness(t)
	h.size(100, 30)
	h.events(turnStarted(1, "go"),
		&loop.ToolStarted{Header: hdr(loop.TypeToolStarted, 1, 0), ID: "x", Name: "terminal", Arguments: `{"command":"go test ./..."}`},
		&loop.ToolOutput{Header: hdr(loop.TypeToolOutput, 1, 100*time.Millisecond), ID: "x", Text: "ok  pkg/first\n"},
	)
	h.key("ctrl+t")
	contains(t, h.screen(), "pager", "ok  pkg/first")
	for i := range 40 {
		h.clk.advance(frameInterval)
		h.events(&loop.ToolOutput{Header: hdr(loop.TypeToolOutput, 1, time.Second), ID: "x", Text: fmt.Sprintf("ok  pkg/later%02d\n", i)})
		h.send(frameMsg{})
	}
	s := h.screen()
	contains(t, s, "pager", "ok  pkg/later39")
	if h.m.pager == nil {
		t.Fatal("the pager closed")
	}
}
