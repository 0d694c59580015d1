package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"talaria/loop"
)

func TestRunningLaneShowsItsLastLinesLive(t *testing.T) {
	h := newHarness(t)
	h.size(100, 40)
	h.events(turnStarted(1, "go"),
		&loop.ToolStarted{Header: hdr(loop.TypeToolStarted, 1, 0), ID: "x", Name: "terminal", Arguments: `{"command":"go test ./..."}`},
	)
	for i := 1; i <= 12; i++ {
		h.events(&loop.ToolOutput{Header: hdr(loop.TypeToolOutput, 1, time.Duration(i)*100*time.Millisecond), ID: "x", Text: fmt.Sprintf("ok  pkg/%02d\n", i)})
	}
	h.events(&loop.ToolOutput{Header: hdr(loop.TypeToolOutput, 1, 2*time.Second), ID: "x", Text: "running pkg/13"})
	s := h.screen()
	contains(t, s, "│ ok  pkg/09", "│ ok  pkg/12", "│ running pkg/13", "8 earlier lines · ctrl+t full output")
	if strings.Contains(s, "pkg/08") {
		t.Errorf("more than 5 live lines:\n%s", s)
	}
	// Interrupted: the lane keeps the tail it showed.
	h.events(&loop.TurnFinished{Header: hdr(loop.TypeTurnFinished, 1, 3*time.Second), ExitReason: loop.ExitInterruptedByUser.Exit()})
	contains(t, h.screen(), "⊘ terminal go test ./...", "│ ok  pkg/12", "│ running pkg/13")
}

func TestStoppedLaneKeepsWhatItPrinted(t *testing.T) {
	h := newHarness(t)
	h.size(100, 40)
	h.events(turnStarted(1, "go"),
		&loop.ToolStarted{Header: hdr(loop.TypeToolStarted, 1, 0), ID: "x", Name: "terminal", Arguments: `{"command":"make"}`},
		&loop.ToolOutput{Header: hdr(loop.TypeToolOutput, 1, time.Second), ID: "x", Text: "compiling a\ncompiling b\n"},
		&loop.ToolCompleted{Header: hdr(loop.TypeToolCompleted, 1, 2*time.Second), ID: "x", Name: "terminal", Cancelled: true, DurationMS: 2000,
			Output: "[The user stopped this terminal call after 2s; the other calls of the batch went on. Do not retry it unless the user asks.]\nWhat it had printed:\ncompiling a\ncompiling b"},
	)
	contains(t, h.screen(), "⊘ terminal make", "stopped by you · 2.0s", "│ compiling a", "│ compiling b")
}

func TestLineRingIsBounded(t *testing.T) {
	var r lineRing
	for i := range 100_000 {
		r.write(fmt.Sprintf("line %d\n", i))
	}
	r.write("50%\r100%")
	got := r.last(3)
	if strings.Join(got, "|") != "line 99998|line 99999|100%" || r.total() != 100_001 {
		t.Fatalf("last %q total %d", got, r.total())
	}
	if len(r.last(1000)) != liveRingLines {
		t.Fatal("ring grew")
	}
}

func TestFinishedCallShowsItsDiff(t *testing.T) {
	h := newHarness(t)
	h.size(100, 40)
	h.events(turnStarted(1, "go"),
		&loop.ToolCompleted{Header: hdr(loop.TypeToolCompleted, 1, time.Second), ID: "x", Name: "write_file", OK: true, DurationMS: 5,
			Output: "Overwrote a.txt", Diff: "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n"},
	)
	contains(t, h.screen(), "│ +1 -1", "│ -two", "│ +2")
}

// BenchmarkLaneOutputFlood: a lane receiving 100,000 lines in events of
// 100 lines (what the stream coalescer hands it), each followed by a frame.
func BenchmarkLaneOutputFlood(b *testing.B) {
	var chunk strings.Builder
	for i := range 100 {
		fmt.Fprintf(&chunk, "some output line number %d of the flood\n", i)
	}
	text := chunk.String()
	for b.Loop() {
		h := newHarness(b)
		h.size(120, 40)
		h.events(turnStarted(1, "go"),
			&loop.ToolStarted{Header: hdr(loop.TypeToolStarted, 1, 0), ID: "x", Name: "terminal", Arguments: `{"command":"yes"}`})
		for range 1000 {
			h.events(&loop.ToolOutput{Header: hdr(loop.TypeToolOutput, 1, time.Second), ID: "x", Text: text})
			_ = h.m.View()
		}
	}
}

// BenchmarkKeystrokeDuringFlood: the cost from a key press to the next
// frame while a lane has taken in 100,000 lines: Update of the key and
// View, with output events arriving in between.
func BenchmarkKeystrokeDuringFlood(b *testing.B) {
	h := newHarness(b)
	h.size(120, 40)
	h.events(turnStarted(1, "go"),
		&loop.ToolStarted{Header: hdr(loop.TypeToolStarted, 1, 0), ID: "x", Name: "terminal", Arguments: `{"command":"yes"}`})
	var chunk strings.Builder
	for i := range 100 {
		fmt.Fprintf(&chunk, "some output line number %d of the flood\n", i)
	}
	out := &loop.ToolOutput{Header: hdr(loop.TypeToolOutput, 1, time.Second), ID: "x", Text: chunk.String()}
	for range 1000 {
		h.events(out)
	}
	key := keyMsg("a")
	for b.Loop() {
		h.events(out)
		h.m.Update(key)
		_ = h.m.View()
	}
}
