package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"talaria/loop"
	"talaria/providers"
)

const goldenAnswer = "## Fixed\n\nThe parser now **skips** trailing commas:\n\n- `Parse` accepts `[1,2,]`\n- a test covers it\n\n```go\nfunc skip(t token) bool { return t == comma }\n```\n"

// goldenScene drives a model through a turn that exercises every pane, at
// a fixed clock, and leaves it mid-turn.
func goldenScene(t *testing.T, width int) *harness {
	h := newHarness(t, func(o *Options) { o.BusyInputMode = BusySteer })
	h.size(width, 60)
	h.typeText("fix the trailing comma bug in parser.go")
	h.key("enter")
	s := func(d time.Duration) time.Duration { return d * time.Second }
	h.events(
		turnStarted(1, "fix the trailing comma bug in parser.go"),
		&loop.IterationStarted{Header: hdr(loop.TypeIterationStarted, 1, 0), Iteration: 1, BudgetUsed: 1, BudgetMax: 90},
		&loop.MessageCompleted{Header: hdr(loop.TypeMessageCompleted, 1, s(1)), Reasoning: "The bug is in the comma handling.\nCheck the tests first.",
			Content: "Let me look at the parser and its tests.", Usage: providers.Usage{InputTokens: 15000, CacheReadTokens: 3000, OutputTokens: 420},
			ToolCalls: []loop.ToolCallInfo{{ID: "r1", Name: "read_file"}, {ID: "s1", Name: "search_files"}, {ID: "p1", Name: "patch"}}},
		&loop.ToolsPlanned{Header: hdr(loop.TypeToolsPlanned, 1, s(1)), Segments: []loop.PlannedSegment{
			{Mode: "parallel", Calls: []loop.ToolCallInfo{
				{ID: "r1", Name: "read_file", Arguments: `{"path":"parser/parser.go"}`},
				{ID: "s1", Name: "search_files", Arguments: `{"pattern":"trailing comma","target":"content","path":"parser"}`}}},
			{Mode: "sequential", Calls: []loop.ToolCallInfo{{ID: "p1", Name: "patch", Arguments: `{"mode":"replace","path":"parser/parser.go"}`}}},
		}},
		&loop.ToolStarted{Header: hdr(loop.TypeToolStarted, 1, s(1)), ID: "r1", Name: "read_file", Arguments: `{"path":"parser/parser.go"}`},
		&loop.ToolStarted{Header: hdr(loop.TypeToolStarted, 1, s(1)), ID: "s1", Name: "search_files", Arguments: `{"pattern":"trailing comma","target":"content","path":"parser"}`},
		&loop.ToolCompleted{Header: hdr(loop.TypeToolCompleted, 1, s(2)), ID: "r1", Name: "read_file", OK: true, DurationMS: 140,
			Output: "1\tpackage parser\n2\t\n3\timport \"errors\"\n4\t\n5\tfunc Parse(s string) ([]int, error) {\n6\t\treturn nil, errors.New(\"todo\")"},
		&loop.ToolStarted{Header: hdr(loop.TypeToolStarted, 1, s(3)), ID: "p1", Name: "patch", Arguments: `{"mode":"replace","path":"parser/parser.go"}`},
		&loop.ToolCompleted{Header: hdr(loop.TypeToolCompleted, 1, s(3)), ID: "p1", Name: "patch", OK: true, DurationMS: 35,
			Output: "--- a/parser/parser.go\n+++ b/parser/parser.go\n@@ -12,3 +12,4 @@\n-\tif t == comma {\n+\tif t == comma && next != end {\n \t\treturn skip\n+\t}"},
		&loop.IterationStarted{Header: hdr(loop.TypeIterationStarted, 1, s(3)), Iteration: 2, BudgetUsed: 2, BudgetMax: 90},
		&loop.BudgetRefunded{Header: hdr(loop.TypeBudgetRefunded, 1, s(3)), Reason: "empty_response"},
		&loop.RetryScheduled{Header: hdr(loop.TypeRetryScheduled, 1, s(4)), Attempt: 2, MaxAttempts: 4, DelayMS: 8000, Reason: "overloaded", Status: 529, Message: "Overloaded: the model is busy, try again later"},
		&loop.FallbackActivated{Header: hdr(loop.TypeFallbackActivated, 1, s(4)), From: loop.Backend{Provider: "openai", Model: "gpt-4.1"}, To: loop.Backend{Provider: "anthropic", Model: "claude-sonnet-4-5"}, Reason: "overloaded"},
		&loop.Guardrail{Header: hdr(loop.TypeGuardrail, 1, s(4)), Action: "warn", Code: "same_tool_failure", Tool: "terminal", Count: 3, Message: "terminal failed three times with the same error; try another approach"},
		&loop.SteerQueued{Header: hdr(loop.TypeSteerQueued, 1, s(4)), Text: "also run go vet"},
	)
	h.typeText("then update the changelog")
	h.key("tab")
	h.clk.advance(6500 * time.Millisecond)
	h.send(frameMsg{})
	return h
}

func TestGoldenPanes(t *testing.T) {
	for _, w := range []int{80, 120} {
		h := goldenScene(t, w)
		m := h.m
		panes := map[string]string{
			"activity":   m.live.activityLine(m.paneEnv()),
			"retry":      strings.Join(m.live.retryPane(m.paneEnv()), "\n"),
			"budget":     m.live.budgetGauge(m.paneEnv()),
			"guardrails": strings.Join(m.live.guardrailPane(m.paneEnv()), "\n"),
			"pending":    strings.Join(pendingPane(m.paneEnv()), "\n"),
			"status":     m.statusView,
			"tools":      toolsBlock(t, m),
		}
		for name, got := range panes {
			t.Run(fmt.Sprintf("%s/%d", name, w), func(t *testing.T) { golden(t, got) })
		}
	}
}

// toolsBlock renders the scene's tool batch card.
func toolsBlock(t *testing.T, m *Model) string {
	for _, e := range m.tr.entries {
		if b, ok := e.it.(*toolBatch); ok {
			return strings.Join(b.render(m.renderCtx()), "\n")
		}
	}
	t.Fatal("no tool batch in the scene")
	return ""
}

func TestGoldenScreen(t *testing.T) {
	for _, w := range []int{80, 120} {
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			h := goldenScene(t, w)
			h.size(w, 40)
			golden(t, h.m.View().Content)
		})
	}
}

func TestGoldenTranscriptFinished(t *testing.T) {
	for _, w := range []int{80, 120} {
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			h := goldenScene(t, w)
			h.events(
				&loop.MessageCompleted{Header: hdr(loop.TypeMessageCompleted, 1, 12*time.Second), Content: goldenAnswer},
				&loop.SteerDelivered{Header: hdr(loop.TypeSteerDelivered, 1, 12*time.Second), Text: "also run go vet", Iteration: 3},
				&loop.TurnFinished{Header: hdr(loop.TypeTurnFinished, 1, 12*time.Second), ExitReason: loop.ExitTextResponse("stop"), Completed: true, APICalls: 3,
					Usage: providers.Usage{InputTokens: 40000, OutputTokens: 900}},
			)
			h.size(w, 70)
			golden(t, h.m.tr.view)
		})
	}
}

func TestGoldenPopup(t *testing.T) {
	for _, w := range []int{80, 120} {
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			h := newHarness(t)
			h.size(w, 30)
			h.typeText("/")
			h.key("down")
			golden(t, h.m.popupView)
		})
	}
}
