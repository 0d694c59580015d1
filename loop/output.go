package loop

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// childTargetKeys are the arguments that name what a child's tool call
// works on, tried in order.
var childTargetKeys = [...]string{"path", "command", "pattern", "query", "action", "goal", "url"}

// ChildProgress returns a sink that turns a child agent's events into one
// progress line each, written to w (a delegate_task call's live output):
// iterations starting, tools starting and finishing with their name and
// target, and the child finishing with its exit reason. Other events are
// dropped. It is safe for concurrent use.
func ChildProgress(w io.Writer) Sink {
	if w == io.Discard || w == nil {
		return nil
	}
	var mu sync.Mutex
	targets := map[string]string{} // running call id → "name target"
	return func(e Event) {
		mu.Lock()
		defer mu.Unlock()
		line := ""
		switch ev := e.(type) {
		case *IterationStarted:
			line = fmt.Sprintf("iteration %d (budget %d/%d)", ev.Iteration, ev.BudgetUsed, ev.BudgetMax)
		case *ToolStarted:
			what := strings.TrimSpace(ev.Name + " " + callTarget(ev.Arguments))
			targets[ev.ID] = what
			line = "→ " + what
		case *ToolCompleted:
			what := targets[ev.ID]
			delete(targets, ev.ID)
			if what == "" {
				what = ev.Name
			}
			mark := "✓"
			switch {
			case ev.Cancelled:
				mark = "⊘"
			case !ev.OK:
				mark = "✗"
			}
			line = fmt.Sprintf("%s %s (%s)", mark, what, (time.Duration(ev.DurationMS) * time.Millisecond).Round(100*time.Millisecond))
		case *TurnFinished:
			line = "finished: " + ev.ExitReason.String()
		}
		if line != "" {
			_, _ = io.WriteString(w, line+"\n")
		}
	}
}

// callTarget is the argument that names what a call works on, on one line
// and clipped.
func callTarget(args string) string {
	var m map[string]any
	if json.Unmarshal([]byte(args), &m) != nil {
		return ""
	}
	for _, k := range childTargetKeys {
		if s, ok := m[k].(string); ok && strings.TrimSpace(s) != "" {
			s = strings.Join(strings.Fields(s), " ")
			if r := []rune(s); len(r) > 80 {
				s = string(r[:80]) + "…"
			}
			return s
		}
	}
	return ""
}
