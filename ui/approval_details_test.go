package ui

import (
	"strings"
	"testing"
	"time"

	"talaria/loop"
	"talaria/tools"
)

// TestApprovalWaitDetails: the key hints appear once the dialog is armed
// on the frame tick alone (no key pressed), the wait counts from the
// question, and the call waiting for the answer says so in its lane.
func TestApprovalWaitDetails(t *testing.T) {
	d := NewDialogs()
	h := newHarness(t, withDialogs(d))
	h.size(100, 40)
	h.startBusy()
	args := `{"path":"notes.md","content":"x"}`
	h.events(&loop.ToolsPlanned{Header: hdr(loop.TypeToolsPlanned, 1, 0), Segments: []loop.PlannedSegment{{Mode: "sequential",
		Calls: []loop.ToolCallInfo{{ID: "w1", Name: "write_file", Arguments: args}}}}})
	h.clk.advance(20 * time.Second) // the turn has run a while before it asks
	done := approveAsync(callCtx(t), d, tools.ApprovalRequest{Tool: "write_file", Summary: "Write: notes.md", Args: args})
	h.showNextUnarmed(d)
	h.clk.advance(2 * time.Second)
	h.send(frameMsg{})
	s := h.screen()
	contains(t, s, "waiting for your answer · 2.0s", "awaiting approval")
	if strings.Contains(s, "· 22") {
		t.Errorf("the wait counts from the turn's start:\n%s", s)
	}
	if !strings.Contains(s, "enter confirm") {
		t.Errorf("the key hints did not replace … on the frame tick:\n%s", s)
	}
	h.key("y")
	result(t, done)
	h.send(frameMsg{})
	if strings.Contains(h.screen(), "awaiting approval") {
		t.Error("the lane still says awaiting approval after the answer")
	}
}

func TestTargetPreview(t *testing.T) {
	for _, c := range []struct{ name, args, want string }{
		{"patch", `{"mode":"patch","patch":"*** Begin Patch\n*** Update File: a.go\n@@\n-x\n+y\n*** Add File: b.go\n+z\n*** End Patch"}`, "a.go, b.go"},
		{"patch", `{"mode":"replace","path":"c.go","old_string":"a","new_string":"b"}`, "c.go"},
		{"todo", `{"todos":[{"id":"1"},{"id":"2"},{"id":"3"}],"merge":true}`, "3 items · merge"},
		{"todo", `{}`, "read the list"},
	} {
		if got := argPreview(c.name, c.args); got != c.want {
			t.Errorf("argPreview(%s, %s) = %q, want %q", c.name, c.args, got, c.want)
		}
	}
}
