package loop

import (
	"context"
	"strings"
	"testing"

	"talaria/providers"
)

// TestSteerOnlyJoinsAnUnsavedToolResult: a pending steer is delivered
// into the last message only when it is a tool result not yet saved, so
// that the saved session shows what the model saw. A tool result already
// saved (a compression counts the history as saved) keeps its text and
// the steer waits, still pending, for the next unsaved result; nothing
// but a tool result carries one.
func TestSteerOnlyJoinsAnUnsavedToolResult(t *testing.T) {
	toolMsg := providers.Message{Role: providers.RoleTool, ToolCallID: "c1", Content: "result"}
	cases := []struct {
		name    string
		last    providers.Message
		saved   bool
		deliver bool
	}{
		{"unsaved tool result", toolMsg, false, true},
		{"saved tool result", toolMsg, true, false},
		{"unsaved assistant message", providers.Message{Role: providers.RoleAssistant, Content: "thinking"}, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := newRecorder()
			a := New(Options{SessionID: "s", Sink: rec.sink})
			a.history = []providers.Message{{Role: providers.RoleUser, Content: "go"}, c.last}
			tr := newTurn(a, context.Background(), 1)
			tr.saved = 1 // the user message
			if c.saved {
				tr.saved = 2
			}
			if a.Steer("look at the tests") == 0 {
				t.Fatal("steer refused")
			}
			tr.deliverSteer()
			got := a.History()[1].Content
			delivered := strings.Contains(got, SteerOpen+"\nlook at the tests\n"+SteerClose)
			a.mu.Lock()
			pending := len(a.steer)
			a.mu.Unlock()
			if delivered != c.deliver || (pending == 0) != c.deliver {
				t.Fatalf("delivered %v (want %v), %d steer(s) still pending; last message %q", delivered, c.deliver, pending, got)
			}
			if !c.deliver && got != c.last.Content {
				t.Fatalf("the last message changed: %q", got)
			}
		})
	}
}
