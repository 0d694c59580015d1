package ui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestPasteCRLineEndings: tmux and many terminals send CR between pasted
// lines. Long and short pastes alike keep their lines, and the model gets
// LF, never CR.
func TestPasteCRLineEndings(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 300; i++ {
		b.WriteString(fmt.Sprintf("log line %d\r", i))
	}
	h := newHarness(t)
	h.send(tea.PasteMsg{Content: b.String()})
	if got := h.m.comp.value(); got != "[pasted 300 lines]" {
		t.Fatalf("300-line CR paste shows %q", got)
	}
	h.key("enter")
	calls := h.agent.got()
	if len(calls) != 1 || strings.Contains(calls[0], "\r") || strings.Count(calls[0], "\n") != 300 {
		t.Fatalf("sent %q…", calls[0][:min(80, len(calls[0]))])
	}

	h2 := newHarness(t)
	h2.send(tea.PasteMsg{Content: "one\r\ntwo\rthree"})
	if got := h2.m.comp.value(); got != "one\ntwo\nthree" {
		t.Fatalf("short CR paste = %q", got)
	}
}
