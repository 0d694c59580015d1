package ui

import (
	"strings"
	"testing"
	"time"

	"talaria/loop"
)

// TestGuardrailNoteOnCard (issue 24 defect 12): the guardrail's warning is
// on the card of the call it is about, in full, not hidden under "+N
// lines · ctrl+t" behind a long failed output.
func TestGuardrailNoteOnCard(t *testing.T) {
	h := newHarness(t)
	h.size(80, 40)
	long := strings.Repeat("error: line\n", 12)
	h.events(turnStarted(1, "go"),
		&loop.ToolsPlanned{Header: hdr(loop.TypeToolsPlanned, 1, 0), Segments: []loop.PlannedSegment{
			{Mode: "sequential", Calls: []loop.ToolCallInfo{{ID: "a", Name: "terminal"}}},
		}},
		&loop.ToolStarted{Header: hdr(loop.TypeToolStarted, 1, time.Second), ID: "a", Name: "terminal", Arguments: `{"command":"make"}`},
		&loop.ToolCompleted{Header: hdr(loop.TypeToolCompleted, 1, 2*time.Second), ID: "a", Name: "terminal", DurationMS: 10, Output: long},
		&loop.Guardrail{Header: hdr(loop.TypeGuardrail, 1, 2*time.Second), ID: "a", Action: "warn", Code: "repeated_exact_failure_warning",
			Tool: "terminal", Count: 2, Message: "terminal has now failed 2 times with these exact arguments."},
	)
	s := h.screen()
	contains(t, s, "+8 lines", "⚠ guardrail repeated_exact_failure_warning: terminal has now failed 2 times")
}

// TestGuardrailNoteFromStoredResult: a resumed card finds the note at the
// end of the stored result and shows it the same way.
func TestGuardrailNoteFromStoredResult(t *testing.T) {
	c := &toolCall{id: "a", name: "read_file", state: toolFailed,
		output: "Error: missing\n\n[Tool loop warning: repeated_exact_failure_warning; count=2; read_file has now failed 2 times]"}
	h := newHarness(t)
	h.size(80, 24)
	got := plain(strings.Join(c.card(h.m.renderCtx(), ""), "\n"))
	if !strings.Contains(got, "⚠ guardrail Tool loop warning: repeated_exact_failure_warning; count=2") || strings.Count(got, "count=2") != 1 {
		t.Errorf("card:\n%s", got)
	}
}
