package ui

import (
	"strings"
	"testing"
	"time"

	"talaria/loop"
)

// besideRunning starts a batch of two terminal calls, finishes the first
// with out and leaves the second running, so the batch redraws every
// frame.
func besideRunning(h *harness, out string) {
	h.events(turnStarted(1, "go"),
		&loop.ToolsPlanned{Header: hdr(loop.TypeToolsPlanned, 1, 0), Segments: []loop.PlannedSegment{{Mode: "parallel",
			Calls: []loop.ToolCallInfo{{ID: "a", Name: "terminal"}, {ID: "b", Name: "terminal"}}}}},
		&loop.ToolStarted{Header: hdr(loop.TypeToolStarted, 1, 0), ID: "a", Name: "terminal", Arguments: `{"command":"make"}`},
		&loop.ToolStarted{Header: hdr(loop.TypeToolStarted, 1, 0), ID: "b", Name: "terminal", Arguments: `{"command":"sleep 60"}`},
		&loop.ToolCompleted{Header: hdr(loop.TypeToolCompleted, 1, time.Second), ID: "a", Name: "terminal", DurationMS: 900, Output: out},
	)
}

// A finished call's cached lines follow its result, the width and the
// theme, while the running call beside it redraws the batch each frame.
func TestFinishedCardFollowsResultWidthAndTheme(t *testing.T) {
	h := newHarness(t)
	h.size(100, 40)
	long := "Error: " + strings.Repeat("word ", 30)
	besideRunning(h, long)
	h.m.Update(frameMsg{})
	wide := h.screen()
	contains(t, wide, "│ Error: word")
	h.size(60, 40)
	h.m.Update(frameMsg{})
	if narrow := h.screen(); strings.Count(narrow, "│ ") <= strings.Count(wide, "│ ") {
		t.Errorf("the failed output was not wrapped again at 60 columns:\n%s", narrow)
	}
	h.events(&loop.ToolCompleted{Header: hdr(loop.TypeToolCompleted, 1, 2*time.Second), ID: "a", Name: "terminal", DurationMS: 900, Output: "Error: another failure"})
	h.m.Update(frameMsg{})
	s := h.screen()
	contains(t, s, "│ Error: another failure")
	if strings.Contains(s, "word word") {
		t.Errorf("the old result is still drawn:\n%s", s)
	}
	gen := h.m.look.gen
	h.command("/theme light")
	if h.m.look.gen == gen {
		t.Fatal("/theme did not change the look")
	}
	h.m.Update(frameMsg{})
	c := h.m.live.calls["a"].call
	if c.body.gen != h.m.look.gen {
		t.Errorf("the card was not rendered again for the new theme (cached for gen %d, look is %d)", c.body.gen, h.m.look.gen)
	}
}

// BenchmarkFrameBesideFailedCall: one frame of a batch whose first call
// failed with 1,000 lines of output while the second still runs.
func BenchmarkFrameBesideFailedCall(b *testing.B) {
	h := newHarness(b)
	h.size(120, 40)
	besideRunning(h, "Error: "+strings.Repeat("compile error in some/package/file.go:12:3: undefined: thing\n", 1000))
	for b.Loop() {
		h.m.Update(frameMsg{}) // the tick it returns is not run
		_ = h.m.View()
	}
}
