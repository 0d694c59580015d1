package compress

import (
	"fmt"
	"strings"
	"testing"

	"talaria/providers"
)

func user(s string) providers.Message { return providers.Message{Role: providers.RoleUser, Content: s} }
func asst(s string) providers.Message {
	return providers.Message{Role: providers.RoleAssistant, Content: s}
}

func call(id, name, args string) providers.ToolCall {
	return providers.ToolCall{ID: id, Name: name, Arguments: args}
}

func asstCalls(calls ...providers.ToolCall) providers.Message {
	return providers.Message{Role: providers.RoleAssistant, ToolCalls: calls}
}

func result(id, name, content string) providers.Message {
	return providers.Message{Role: providers.RoleTool, ToolCallID: id, ToolName: name, Content: content}
}

// words returns text of about n tokens by the estimate (4 letters a token).
func words(n int) string { return strings.Repeat("abcd", n) }

// checkPairs fails t unless every tool result sits in the run of tool
// messages right after the assistant message that called it, and every call
// has exactly one result.
func checkPairs(t testing.TB, msgs []providers.Message) {
	t.Helper()
	if err := pairError(msgs); err != nil {
		t.Fatal(err)
	}
}

func pairError(msgs []providers.Message) error {
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if m.Role == providers.RoleTool {
			return fmt.Errorf("message %d: tool result %q without its call", i, m.ToolCallID)
		}
		if m.Role != providers.RoleAssistant || len(m.ToolCalls) == 0 {
			continue
		}
		want := map[string]int{}
		for _, tc := range m.ToolCalls {
			want[tc.ID]++
		}
		j := i + 1
		for ; j < len(msgs) && msgs[j].Role == providers.RoleTool; j++ {
			id := msgs[j].ToolCallID
			if want[id] == 0 {
				return fmt.Errorf("message %d: result %q does not answer a pending call of message %d", j, id, i)
			}
			want[id]--
		}
		for id, n := range want {
			if n != 0 {
				return fmt.Errorf("message %d: call %q has no result", i, id)
			}
		}
		i = j - 1
	}
	return nil
}

// countSummaries counts messages carrying a compaction summary.
func countSummaries(msgs []providers.Message) int {
	n := 0
	for i := range msgs {
		if IsSummary(&msgs[i]) {
			n++
		}
	}
	return n
}
