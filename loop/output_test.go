package loop

import (
	"io"
	"strings"
	"testing"
)

func TestChildProgressOneLinePerEvent(t *testing.T) {
	var b strings.Builder
	sink := ChildProgress(&b)
	sink(&IterationStarted{Iteration: 1, BudgetUsed: 1, BudgetMax: 20})
	sink(&MessageDelta{Text: "ignored"})
	sink(&ToolStarted{ID: "x", Name: "read_file", Arguments: `{"path":"main.go"}`})
	sink(&ToolCompleted{ID: "x", Name: "read_file", OK: true, DurationMS: 1200})
	sink(&ToolStarted{ID: "y", Name: "terminal", Arguments: `{"command":"go   test ./..."}`})
	sink(&ToolCompleted{ID: "y", Name: "terminal", OK: false})
	sink(&TurnFinished{ExitReason: ExitTextResponse("stop")})
	want := "iteration 1 (budget 1/20)\n→ read_file main.go\n✓ read_file main.go (1.2s)\n→ terminal go test ./...\n✗ terminal go test ./... (0s)\nfinished: text_response(finish_reason=stop)\n"
	if b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
	if ChildProgress(io.Discard) != nil {
		t.Fatal("nobody watches: no sink")
	}
}
