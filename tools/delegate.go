package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
)

// Limits of delegate_task.
const (
	// DelegateMaxConcurrent is how many child agents run at once.
	DelegateMaxConcurrent = 3
	// delegateMaxTasks is how many tasks one call may hold.
	delegateMaxTasks = 8
	// delegateSummaryCap caps the summaries of one call, all together.
	delegateSummaryCap = 24_000
)

// DelegateTask is one subtask handed to a child agent.
type DelegateTask struct {
	// Goal is what the child must achieve.
	Goal string
	// Context is what the child needs to know: files, constraints,
	// findings so far. The child sees nothing else of the conversation.
	Context string
}

// DelegateResult is what a child agent reports back.
type DelegateResult struct {
	// Goal repeats the task's goal.
	Goal string
	// Summary is the child's final answer.
	Summary string
	// Err is set when the child failed; Summary may still hold partial
	// findings.
	Err error
}

// DelegateTaskTool is the delegate_task tool: it runs subtasks in child
// agents through Env.Delegate, at most DelegateMaxConcurrent at once, and
// returns their summaries.
type DelegateTaskTool struct{}

// Name implements Tool.
func (DelegateTaskTool) Name() string { return "delegate_task" }

// Description implements Tool.
func (DelegateTaskTool) Description() string {
	return fmt.Sprintf("Hand self-contained subtasks to child agents that work with the same tools and their own iteration budget, and get back their final summaries. "+
		"Use it for work that needs many tool calls but whose result is short (investigating a subsystem, a focused refactor, running and fixing a test suite), "+
		"to keep your own context small, or to run independent subtasks side by side. "+
		"Give either one `goal` (with optional `context`) or `tasks`, a list of up to %d {goal, context}; at most %d children run at once. "+
		"Children see nothing of this conversation: put everything they need (paths, constraints, what you already know, what to report) in context. "+
		"Children must not edit the same files. The summaries are returned together, capped at %d characters in all.",
		delegateMaxTasks, DelegateMaxConcurrent, delegateSummaryCap)
}

// Schema implements Tool.
func (DelegateTaskTool) Schema() json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{
  "type": "object",
  "properties": {
    "goal": {"type": "string", "description": "The goal of a single subtask."},
    "context": {"type": "string", "description": "Everything the child needs to know for goal."},
    "tasks": {
      "type": "array",
      "maxItems": %d,
      "description": "Several independent subtasks, run in parallel; use instead of goal.",
      "items": {
        "type": "object",
        "properties": {
          "goal": {"type": "string"},
          "context": {"type": "string"}
        },
        "required": ["goal"]
      }
    }
  },
  "additionalProperties": false
}`, delegateMaxTasks))
}

type delegateArgs struct {
	Goal    string `json:"goal"`
	Context string `json:"context"`
	Tasks   []struct {
		Goal    string `json:"goal"`
		Context string `json:"context"`
	} `json:"tasks"`
}

// Run implements Tool.
func (DelegateTaskTool) Run(ctx context.Context, env *Env, raw json.RawMessage) Result {
	var a delegateArgs
	if err := decodeArgs(raw, &a); err != nil {
		return Errorf("delegate_task: %v", err)
	}
	var tasks []DelegateTask
	goal := strings.TrimSpace(a.Goal)
	switch {
	case goal != "" && len(a.Tasks) > 0:
		return Errorf("delegate_task: give either goal (one subtask) or tasks (several), not both")
	case goal != "":
		tasks = []DelegateTask{{Goal: goal, Context: strings.TrimSpace(a.Context)}}
	case len(a.Tasks) > 0:
		if len(a.Tasks) > delegateMaxTasks {
			return Errorf("delegate_task: at most %d tasks per call, got %d; group related work or delegate in several calls", delegateMaxTasks, len(a.Tasks))
		}
		for i, t := range a.Tasks {
			g := strings.TrimSpace(t.Goal)
			if g == "" {
				return Errorf("delegate_task: task %d has no goal", i+1)
			}
			c := strings.TrimSpace(t.Context)
			if c == "" {
				c = strings.TrimSpace(a.Context)
			}
			tasks = append(tasks, DelegateTask{Goal: g, Context: c})
		}
	default:
		return Errorf("delegate_task: argument \"goal\" or \"tasks\" is required")
	}
	if env == nil || env.Delegate == nil {
		return Errorf("delegate_task: delegation is not available in this session; do the work yourself")
	}
	results := runDelegates(ctx, env.Delegate, tasks)
	return renderDelegates(ctx, results)
}

// runDelegates calls run once per task, at most DelegateMaxConcurrent at
// once, and returns the results in task order. Tasks not started when ctx
// is done are reported as cancelled.
func runDelegates(ctx context.Context, run func(context.Context, DelegateTask) DelegateResult, tasks []DelegateTask) []DelegateResult {
	results := make([]DelegateResult, len(tasks))
	sem := make(chan struct{}, DelegateMaxConcurrent)
	var wg sync.WaitGroup
	for i, t := range tasks {
		acquired := false
		select {
		case sem <- struct{}{}:
			acquired = true
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			if acquired {
				<-sem
			}
			for j := i; j < len(tasks); j++ {
				results[j] = DelegateResult{Goal: tasks[j].Goal, Err: fmt.Errorf("not started: %v", ctx.Err())}
			}
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			defer func() {
				if p := recover(); p != nil {
					results[i] = DelegateResult{Goal: t.Goal, Err: fmt.Errorf("child agent crashed: %v", p)}
				}
			}()
			tctx := ctx
			if len(tasks) > 1 {
				tctx = WithOutputPrefix(ctx, fmt.Sprintf("[%d] ", i+1)) // whose progress line it is
			}
			r := run(tctx, t)
			if r.Goal == "" {
				r.Goal = t.Goal
			}
			results[i] = r
		}()
	}
	wg.Wait()
	return results
}

// renderDelegates renders the results, sharing delegateSummaryCap among
// the summaries: short ones keep all their text, long ones are cut to an
// equal share of what is left.
func renderDelegates(ctx context.Context, results []DelegateResult) Result {
	summaries := make([]string, len(results))
	for i, r := range results {
		summaries[i] = strings.TrimSpace(r.Summary)
	}
	capSummaries(summaries, delegateSummaryCap)
	failed := 0
	var b strings.Builder
	for i, r := range results {
		if len(results) > 1 {
			fmt.Fprintf(&b, "## Task %d: %s\n", i+1, clip(r.Goal, 200))
		}
		if r.Err != nil {
			failed++
			fmt.Fprintf(&b, "[failed: %v]\n", r.Err)
		}
		switch {
		case summaries[i] != "":
			b.WriteString(summaries[i])
		case r.Err == nil:
			b.WriteString("(the child agent returned no summary)")
		}
		b.WriteString("\n\n")
	}
	out := strings.TrimSpace(b.String())
	if failed == len(results) {
		if ctx.Err() != nil {
			out += "\n\n[delegation cancelled]"
		}
		return Result{Output: out, IsError: true}
	}
	return Result{Output: out}
}

// capSummaries cuts the strings of s so that their total length is at most
// total bytes, giving each an equal share of what the shorter ones leave.
func capSummaries(s []string, total int) {
	left, open := total, len(s)
	done := make([]bool, len(s))
	for changed := true; changed && open > 0; {
		changed = false
		share := left / open
		for i, x := range s {
			if !done[i] && len(x) <= share {
				done[i], changed = true, true
				left -= len(x)
				open--
			}
		}
	}
	if open == 0 {
		return
	}
	share := left / open
	for i, x := range s {
		if done[i] {
			continue
		}
		cut := max(share-80, 0)
		for cut > 0 && !utf8.RuneStart(x[cut]) {
			cut--
		}
		s[i] = x[:cut] + fmt.Sprintf("\n[… summary cut: %d more characters …]", len(x)-cut)
	}
}
