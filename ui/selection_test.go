package ui

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"talaria/loop"
)

// rowOf returns the screen row showing text.
func rowOf(t *testing.T, h *harness, text string) int {
	t.Helper()
	for y, l := range strings.Split(h.screen(), "\n") {
		if strings.Contains(l, text) {
			return y
		}
	}
	t.Fatalf("%q is not on screen:\n%s", text, h.screen())
	return -1
}

// drag presses the left button at (x0, y0), moves to (x1, y1) and lets
// go; it returns what the release's commands produced.
func drag(h *harness, x0, y0, x1, y1 int) []tea.Msg {
	h.send(tea.MouseClickMsg{X: x0, Y: y0, Button: tea.MouseLeft})
	h.send(tea.MouseMotionMsg{X: x1, Y: y1, Button: tea.MouseLeft})
	return h.send(tea.MouseReleaseMsg{X: x1, Y: y1, Button: tea.MouseLeft})
}

// decodeOSC52 returns the text an OSC 52 sequence carries.
func decodeOSC52(t *testing.T, raw string) string {
	t.Helper()
	b64, ok := strings.CutPrefix(raw, "\x1b]52;c;")
	if !ok {
		t.Fatalf("not OSC 52: %q", raw)
	}
	b64, _, _ = strings.Cut(b64, "\x07")
	data, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// wrappedAnswer wraps at 60 columns between words and, at the long
// word, inside it.
const wrappedAnswer = "The quick brown fox jumps over the lazy dog and keeps going far beyond the edge of this narrow screen, and a longwordthatnowrapcanbreakanywhereatallsoitisbrokenmidword."

// TestDragSelectsAndCopies: a drag from the user message to the end of
// a wrapped answer copies the text without the gutters and with the soft
// wraps joined; the bytes are OSC 52 of exactly that text, and the
// notice counts the lines.
func TestDragSelectsAndCopies(t *testing.T) {
	h := newHarness(t)
	h.size(60, 20)
	h.events(turnStarted(1, "hello there"),
		&loop.MessageCompleted{Header: hdr(loop.TypeMessageCompleted, 1, 0), Content: wrappedAnswer},
		&loop.TurnFinished{Header: hdr(loop.TypeTurnFinished, 1, time.Second), ExitReason: loop.ExitTextResponse("stop"), Completed: true, FinalResponse: wrappedAnswer})
	y0 := rowOf(t, h, "› hello there")
	y1 := rowOf(t, h, "brokenmidword") + 1
	if y1-rowOf(t, h, "The quick brown") < 1 {
		t.Fatalf("the answer did not wrap at 60 columns:\n%s", h.screen())
	}
	msgs := drag(h, 0, y0, 59, y1)
	got := decodeOSC52(t, rawOut(msgs))
	want := "hello there\n\n" + wrappedAnswer
	if got != want {
		t.Errorf("copied %q\nwant   %q", got, want)
	}
	h.feed(msgs)
	contains(t, h.screen(), "copied 3 lines · OSC 52")
}

// TestDragWithinALineAndToolOutput: a drag inside one line copies the
// columns under it; a drag over a tool card's output leaves out its "│"
// rule and indent.
func TestDragWithinALineAndToolOutput(t *testing.T) {
	h := newHarness(t)
	h.size(60, 20)
	h.events(turnStarted(1, "run it"),
		&loop.ToolStarted{Header: hdr(loop.TypeToolStarted, 1, 0), ID: "a", Name: "read_file", Arguments: `{"path":"a.go"}`},
		&loop.ToolCompleted{Header: hdr(loop.TypeToolCompleted, 1, time.Second), ID: "a", Name: "read_file", OK: true, DurationMS: 5, Output: "package a\nfunc A() {}"},
	)
	y := rowOf(t, h, "› run it")
	if got := decodeOSC52(t, rawOut(drag(h, 2, y, 4, y))); got != "run" {
		t.Errorf("copied %q, want %q", got, "run")
	}
	y0, y1 := rowOf(t, h, "│ package a"), rowOf(t, h, "│ func A() {}")
	if got := decodeOSC52(t, rawOut(drag(h, 0, y0, 59, y1))); got != "package a\nfunc A() {}" {
		t.Errorf("copied %q", got)
	}
}

// TestDragScrollsPastTheEdge: dragging above the transcript scrolls it,
// so a selection can reach lines that were not on screen.
func TestDragScrollsPastTheEdge(t *testing.T) {
	h := newHarness(t)
	h.size(60, 12)
	var lines []string
	for i := 1; i <= 30; i++ {
		lines = append(lines, "row "+string(rune('A'+i%26)))
	}
	h.events(turnStarted(1, "go"), &loop.MessageCompleted{Header: hdr(loop.TypeMessageCompleted, 1, 0), Content: strings.Join(lines, "\n\n")})
	yEnd := rowOf(t, h, lines[len(lines)-1])
	h.send(tea.MouseClickMsg{X: 59, Y: yEnd, Button: tea.MouseLeft})
	for range 80 {
		h.send(tea.MouseMotionMsg{X: 0, Y: -1, Button: tea.MouseLeft})
	}
	got := decodeOSC52(t, rawOut(h.send(tea.MouseReleaseMsg{X: 0, Y: -1, Button: tea.MouseLeft})))
	if !strings.HasPrefix(got, "go\n") || !strings.HasSuffix(got, lines[len(lines)-1]) {
		t.Errorf("copied %q", got)
	}
}

// TestMouseOffNoCapture: display.mouse false starts without capture.
func TestMouseOffNoCapture(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.MouseOff = true })
	if h.m.View().MouseMode != tea.MouseModeNone {
		t.Error("the mouse is captured")
	}
	contains(t, h.screen(), "mouse off")
}
