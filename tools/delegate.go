package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
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
	// Agent names the subagent definition the child runs as (its system
	// prompt, tools and model); "" is a general child.
	Agent string
}

// DelegateAgent is a subagent definition delegate_task offers by name.
type DelegateAgent struct {
	// Name is what `agent` takes.
	Name string
	// Description says when to delegate to it.
	Description string
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
// returns their summaries. Agents, when set, are the subagent definitions
// a task may name with `agent`; its description lists them.
type DelegateTaskTool struct {
	Agents []DelegateAgent
}

// Name implements Tool.
func (DelegateTaskTool) Name() string { return "delegate_task" }

// Description implements Tool.
func (t DelegateTaskTool) Description() string {
	return fmt.Sprintf("Hand self-contained subtasks to child agents that work with the same tools and their own iteration budget, and get back their final summaries. "+
		"Use it for work that needs many tool calls but whose result is short (investigating a subsystem, a focused refactor, running and fixing a test suite), "+
		"to keep your own context small, or to run independent subtasks side by side. "+
		"Give either one `goal` (with optional `context`) or `tasks`, a list of up to %d {goal, context}; at most %d children run at once. "+
		"Children see nothing of this conversation: put everything they need (paths, constraints, what you already know, what to report) in context. "+
		"Children must not edit the same files. The summaries are returned together, capped at %d characters in all.",
		delegateMaxTasks, DelegateMaxConcurrent, delegateSummaryCap) + t.agentsText()
}

// agentsText lists the agents for the description; "" when there are none.
func (t DelegateTaskTool) agentsText() string {
	if len(t.Agents) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n\nSpecialised agents: set `agent` to one of these names (for the whole call, or per task) to run the child as that agent, with its own instructions, tools and model:")
	for _, a := range t.Agents {
		fmt.Fprintf(&b, "\n- %s: %s", a.Name, strings.Join(strings.Fields(a.Description), " "))
	}
	return b.String()
}

// agentNames returns the agents' names.
func (t DelegateTaskTool) agentNames() []string {
	out := make([]string, len(t.Agents))
	for i, a := range t.Agents {
		out[i] = a.Name
	}
	return out
}

// Schema implements Tool.
func (t DelegateTaskTool) Schema() json.RawMessage {
	agent, itemAgent := "", ""
	if len(t.Agents) > 0 {
		names, _ := json.Marshal(t.agentNames())
		agent = fmt.Sprintf(`
    "agent": {"type": "string", "enum": %s, "description": "The specialised agent every task runs as, unless a task names its own."},`, names)
		itemAgent = fmt.Sprintf(`,
          "agent": {"type": "string", "enum": %s}`, names)
	}
	return json.RawMessage(fmt.Sprintf(`{
  "type": "object",
  "properties": {%s
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
          "context": {"type": "string"}%s
        },
        "required": ["goal"]
      }
    }
  },
  "additionalProperties": false
}`, agent, delegateMaxTasks, itemAgent))
}

type delegateArgs struct {
	Goal    string `json:"goal"`
	Context string `json:"context"`
	Agent   string `json:"agent"`
	Tasks   []struct {
		Goal    string `json:"goal"`
		Context string `json:"context"`
		Agent   string `json:"agent"`
	} `json:"tasks"`
}

// Run implements Tool.
func (t DelegateTaskTool) Run(ctx context.Context, env *Env, raw json.RawMessage) Result {
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
		tasks = []DelegateTask{{Goal: goal, Context: strings.TrimSpace(a.Context), Agent: strings.TrimSpace(a.Agent)}}
	case len(a.Tasks) > 0:
		if len(a.Tasks) > delegateMaxTasks {
			return Errorf("delegate_task: at most %d tasks per call, got %d; group related work or delegate in several calls", delegateMaxTasks, len(a.Tasks))
		}
		for i, at := range a.Tasks {
			g := strings.TrimSpace(at.Goal)
			if g == "" {
				return Errorf("delegate_task: task %d has no goal", i+1)
			}
			c := strings.TrimSpace(at.Context)
			if c == "" {
				c = strings.TrimSpace(a.Context)
			}
			ag := strings.TrimSpace(at.Agent)
			if ag == "" {
				ag = strings.TrimSpace(a.Agent)
			}
			tasks = append(tasks, DelegateTask{Goal: g, Context: c, Agent: ag})
		}
	default:
		return Errorf("delegate_task: argument \"goal\" or \"tasks\" is required")
	}
	for i, task := range tasks {
		if task.Agent != "" && !slices.Contains(t.agentNames(), task.Agent) {
			if len(t.Agents) == 0 {
				return Errorf("delegate_task: task %d: no agent %q: this session defines no agents; leave agent out", i+1, task.Agent)
			}
			return Errorf("delegate_task: task %d: no agent %q; the agents are: %s", i+1, task.Agent, strings.Join(t.agentNames(), ", "))
		}
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
