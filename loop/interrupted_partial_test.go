package loop

import (
	"strings"
	"testing"

	"talaria/providers"
	pt "talaria/providers/providertest"
)

// TestInterruptedPartialAnswerStaysInHistory: Esc mid-stream keeps what
// streamed as the assistant message, marked interrupted, so the next
// request does not carry two user messages in a row.
func TestInterruptedPartialAnswerStaysInHistory(t *testing.T) {
	f := newFixture(t, nil)
	hold := make(chan struct{})
	defer close(hold)
	// Without the role-only opening chunk, the hold comes right after
	// the first words.
	f.srv.Push(pt.Reply{Chunks: pt.TextChunks("The answer begins", "stop")[1:], Hold: hold})
	done := f.runAsync("explain it")
	f.rec.waitFor(t, TypeMessageDelta)
	f.agent.Interrupt()
	if res := await(t, done); res.ExitReason.Kind != ExitInterruptedDuringAPI {
		t.Fatalf("result: %+v", res)
	}
	h := f.agent.History()
	last := h[len(h)-1]
	if last.Role != providers.RoleAssistant || !strings.HasPrefix(last.Content, "The") || !strings.HasSuffix(last.Content, interruptedMark) {
		t.Fatalf("last message: %+v", last)
	}
	f.srv.Push(pt.Text("continuing"))
	f.run(t, "go on")
	msgs := messages(t, f.srv, 1)
	var roles []string
	for _, m := range msgs {
		roles = append(roles, m["role"].(string))
	}
	if got := strings.Join(roles, " "); got != "system user assistant user" {
		t.Fatalf("second request roles: %s", got)
	}
	if c, _ := msgs[2]["content"].(string); !strings.Contains(c, "[interrupted by the user]") {
		t.Fatalf("the partial answer lost its mark: %q", c)
	}
}
