package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"talaria/loop"
	"talaria/providers"
)

// resumedCalls is a saved batch whose calls ended four ways.
func resumedCalls(withStatus bool) []providers.Message {
	st := func(s string) string {
		if withStatus {
			return s
		}
		return ""
	}
	return []providers.Message{
		{Role: providers.RoleUser, Content: "write the notes"},
		{Role: providers.RoleAssistant, ToolCalls: []providers.ToolCall{
			{ID: "a", Name: "read_file", Arguments: `{"path":"notes.md"}`},
			{ID: "b", Name: "write_file", Arguments: `{"path":"notes.md","content":"x"}`},
			{ID: "c", Name: "read_file", Arguments: `{"path":"gone.md"}`},
			{ID: "d", Name: "terminal", Arguments: `{"command":"make test"}`},
		}},
		{Role: providers.RoleTool, ToolCallID: "a", ToolName: "read_file", Content: "1\t# notes", ToolStatus: st(providers.ToolStatusOK)},
		{Role: providers.RoleTool, ToolCallID: "b", ToolName: "write_file", Content: "Error: The user denied this write_file call (Write notes.md).", ToolStatus: st(providers.ToolStatusDenied)},
		{Role: providers.RoleTool, ToolCallID: "c", ToolName: "read_file", Content: "Error: read_file: file not found: gone.md", ToolStatus: st(providers.ToolStatusFailed)},
		{Role: providers.RoleTool, ToolCallID: "d", ToolName: "terminal", Content: "[Tool execution cancelled — terminal was skipped due to user interrupt]", ToolStatus: st(providers.ToolStatusCancelled)},
		{Role: providers.RoleAssistant, Content: "I could not write the notes."},
	}
}

// TestGoldenResumedToolStates: a resumed batch shows each call as it
// ended (done, denied, failed, cancelled), from the saved status or, in
// older sessions, from the result's text.
func TestGoldenResumedToolStates(t *testing.T) {
	for _, w := range []int{80, 120} {
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			h := newHarness(t, func(o *Options) { o.History = resumedCalls(true) })
			h.size(w, 20)
			s := h.screen()
			contains(t, s, "✓ read_file notes.md", "⊘ write_file notes.md", "denied", "✗ read_file gone.md", "failed", "⊘ terminal", "cancelled")
			golden(t, h.m.View().Content)
			old := newHarness(t, func(o *Options) { o.History = resumedCalls(false) })
			old.size(w, 20)
			if got := old.screen(); got != s {
				t.Errorf("an old session (no saved status) renders differently:\n%s\n--- with status ---\n%s", got, s)
			}
		})
	}
}

// TestDeniedLiveMatchesResumed: live, a denied call shows "denied" with
// its path, as it does when resumed.
func TestDeniedLiveMatchesResumed(t *testing.T) {
	h := newHarness(t)
	h.typeText("write the notes")
	h.key("enter")
	h.events(
		turnStarted(1, "write the notes"),
		&loop.ToolsPlanned{Header: hdr(loop.TypeToolsPlanned, 1, 0), Segments: []loop.PlannedSegment{{Mode: "sequential",
			Calls: []loop.ToolCallInfo{{ID: "b", Name: "write_file", Arguments: `{"path":"notes.md","content":"x"}`}}}}},
		&loop.ToolCompleted{Header: hdr(loop.TypeToolCompleted, 1, time.Second), ID: "b", Name: "write_file", Denied: true,
			Output: "Error: The user denied this write_file call (Write notes.md)."},
	)
	row := ""
	for _, l := range strings.Split(h.screen(), "\n") {
		if strings.Contains(l, "write_file notes.md") {
			row = l
		}
	}
	if !strings.Contains(row, "⊘ write_file notes.md") || !strings.HasSuffix(strings.TrimSpace(row), "denied") {
		t.Fatalf("live denied row: %q", row)
	}
}
