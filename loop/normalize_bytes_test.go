package loop

import (
	"testing"

	"talaria/providers"
)

// TestNormalizeKeepsArgumentBytes: normalizing a tool call sorts the keys
// of its arguments but keeps > < & and non-ASCII text as the model wrote
// them (issue 24 defect 8: they came back as \u003e \u003c \u0026).
func TestNormalizeKeepsArgumentBytes(t *testing.T) {
	m := normalize(providers.Message{Role: providers.RoleAssistant, ToolCalls: []providers.ToolCall{
		{ID: "c1", Name: "terminal", Arguments: `{"timeout":5,"command":"a > b && c < d 'é'"}`},
	}})
	want := `{"command":"a > b && c < d 'é'","timeout":5}`
	if got := m.ToolCalls[0].Arguments; got != want {
		t.Fatalf("arguments %q, want %q", got, want)
	}
}
