package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"talaria/loop"
	"talaria/tools"
)

// TestGoldenFailedTurnLeadsWithExplanation: a turn that failed shows what
// happened and the fix first, the exit reason after; a guardrail block's
// row shows its message, not the JSON the model got.
func TestGoldenFailedTurnLeadsWithExplanation(t *testing.T) {
	blocked := tools.GuardrailDecision{Action: tools.GuardBlock, Code: "exact_failure", Tool: "read_file", Count: 5,
		Message: "Blocked: read_file failed 5 times with the same arguments; change them or try another tool"}.BlockedResult().Output
	for _, w := range []int{80, 120} {
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			h := newHarness(t)
			h.size(w, 16)
			h.typeText("read the missing file")
			h.key("enter")
			h.events(
				turnStarted(1, "read the missing file"),
				&loop.ToolStarted{Header: hdr(loop.TypeToolStarted, 1, time.Second), ID: "c1", Name: "read_file", Arguments: `{"path":"docs/ARCH.md"}`},
				&loop.ToolCompleted{Header: hdr(loop.TypeToolCompleted, 1, 2*time.Second), ID: "c1", Name: "read_file", OK: false, DurationMS: 1, Output: blocked},
				&loop.TurnFinished{Header: hdr(loop.TypeTurnFinished, 1, 3*time.Second), ExitReason: loop.ExitRetriesExhausted.Exit(),
					Explanation: "The provider rejected the API key in OPENAI_API_KEY (HTTP 401). Check that OPENAI_API_KEY holds a valid openai key."},
			)
			s := h.screen()
			contains(t, s, "Blocked: read_file failed 5 times", "The provider rejected the API key in OPENAI_API_KEY (HTTP 401)")
			if strings.Contains(s, `{"error"`) {
				t.Errorf("the block row shows raw JSON:\n%s", s)
			}
			flat := strings.Join(strings.Fields(s), " ")
			if i, j := strings.Index(flat, "The provider rejected"), strings.Index(flat, "all_retries_exhausted"); i < 0 || j < i {
				t.Errorf("the exit reason comes before the explanation:\n%s", s)
			}
			golden(t, h.m.View().Content)
		})
	}
}

func TestToolOutputText(t *testing.T) {
	for in, want := range map[string]string{
		`{"error":"Blocked: x","guardrail":{"action":"block"}}`: "Blocked: x",
		`{"error":"plain json"}`:                                `{"error":"plain json"}`,
		"ordinary output":                                       "ordinary output",
		`{"error":"Blocked: x","guardrail":`:                    `{"error":"Blocked: x","guardrail":`,
	} {
		if got := toolOutputText(in); got != want {
			t.Errorf("toolOutputText(%q) = %q", in, got)
		}
	}
}
