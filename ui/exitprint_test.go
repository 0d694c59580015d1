package ui

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"talaria/loop"
)

// playTurn plays one turn with a tool call and an answer.
func playTurn(h *harness, n int, input, answer string) {
	h.events(turnStarted(n, input),
		&loop.ToolStarted{Header: hdr(loop.TypeToolStarted, n, 0), ID: "c" + input, Name: "read_file", Arguments: `{"path":"main.go"}`},
		&loop.ToolCompleted{Header: hdr(loop.TypeToolCompleted, n, time.Second), ID: "c" + input, Name: "read_file", OK: true, DurationMS: 20, Output: "package main\nfunc main() {}\n"},
		&loop.MessageCompleted{Header: hdr(loop.TypeMessageCompleted, n, 2*time.Second), Content: answer},
		&loop.TurnFinished{Header: hdr(loop.TypeTurnFinished, n, 2*time.Second), ExitReason: loop.ExitTextResponse("stop"), Completed: true, FinalResponse: answer, APICalls: 1},
	)
}

// TestPrintOnExitLastTurn: the default prints the last user message, the
// answer wrapped for the width and one summary line per tool call, and
// none of the earlier turn nor the tool's output.
func TestPrintOnExitLastTurn(t *testing.T) {
	h := newHarness(t)
	h.size(60, 20)
	playTurn(h, 1, "first question", "First answer.")
	playTurn(h, 2, "second question", "The second answer is long enough that it has to wrap at sixty columns on the normal screen.")
	got := plain(h.m.exitTranscript(""))
	contains(t, got, "› second question", "✓ read_file main.go", "● The second answer is long enough")
	for _, bad := range []string{"first question", "First answer", "package main"} {
		if strings.Contains(got, bad) {
			t.Errorf("printed %q:\n%s", bad, got)
		}
	}
	for _, l := range strings.Split(got, "\n") {
		if w := len([]rune(l)); w > 60 {
			t.Errorf("line wider than 60: %q", l)
		}
	}
	all := plain(h.m.exitTranscript(PrintAll))
	contains(t, all, "› first question", "First answer.", "› second question")
	if s := h.m.exitTranscript(PrintNone); s != "" {
		t.Errorf("none printed %q", s)
	}
}

// TestPrintOnExitWrites: printOnExit writes to ExitOutput, without
// colour when that is not a terminal; nothing when nothing was asked.
func TestPrintOnExitWrites(t *testing.T) {
	var buf bytes.Buffer
	h := newHarness(t, func(o *Options) { o.ExitOutput = &buf; o.NoColor = false })
	h.m.printOnExit()
	if buf.Len() != 0 {
		t.Errorf("printed with no turn: %q", buf.String())
	}
	playTurn(h, 1, "hello", "Hi **there**.")
	h.m.printOnExit()
	s := buf.String()
	if strings.Contains(s, "\x1b[") {
		t.Errorf("colour codes written to a non-terminal: %q", s)
	}
	contains(t, s, "› hello", "Hi there.")
}
