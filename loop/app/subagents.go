package app

import (
	"context"
	"fmt"
	"strings"

	"talaria/loop"
	"talaria/loop/ext"
	"talaria/providers"
	"talaria/tools"
)

// delegate is tools.Env.Delegate: it runs one task in a child agent made
// from the session's parts (childOptions), with its own budget; the
// child's final answer is the summary.
func (p *parts) delegate(ctx context.Context, task tools.DelegateTask) tools.DelegateResult {
	agent, err := p.tools.lookupAgent(task.Agent)
	if err != nil {
		return tools.DelegateResult{Goal: task.Goal, Err: err}
	}
	input := task.Goal
	if task.Context != "" {
		input += "\n\nContext from the parent agent:\n" + task.Context
	}
	res, err := loop.New(p.childOptions(ctx, agent)).Run(ctx, input)
	if err == nil && !res.Completed && res.FinalResponse == "" {
		err = fmt.Errorf("the subagent ended without an answer (%s)", res.ExitReason)
	}
	return tools.DelegateResult{Goal: task.Goal, Summary: res.FinalResponse, Err: err}
}

// subagentNote tells a child agent what it is for.
const subagentNote = "You are a subagent working on one delegated task. Work only on it and finish with a concise summary of what you did and found: the summary is all the parent agent sees."

// subagentPrompt puts the subagent note before the closing Model:/Provider:
// lines, so those stay last and a fallback can still rewrite them.
func subagentPrompt(parent string) string {
	return insertBeforeRuntimeLines(parent, subagentNote)
}

// offerAgents makes delegate_task offer the session's subagent
// definitions by name (its description lists them) and keeps them for
// the children it starts.
func (ts *toolset) offerAgents(set *ext.Set) {
	if set == nil || len(set.Agents) == 0 {
		return
	}
	ts.agents = set.Agents
	if _, ok := ts.registry.Get("delegate_task"); !ok {
		return
	}
	var list []tools.DelegateAgent
	for _, n := range set.AgentNames() {
		list = append(list, tools.DelegateAgent{Name: n, Description: set.Agents[n].Description})
	}
	ts.registry.Register(tools.DelegateTaskTool{Agents: list})
}

// childTools is the registry of a child: the parent's tools now (MCP
// servers that came up since included) less delegate_task (one level
// deep), narrowed to an agent's tool list when a is set. A child never
// gets a tool its parent lacks.
func (ts *toolset) childTools(a *ext.Agent) *tools.Registry {
	var names []string
	byName := map[string]tools.Tool{}
	for _, t := range ts.registry.All() {
		if t.Name() != "delegate_task" {
			names = append(names, t.Name())
			byName[t.Name()] = t
		}
	}
	if a != nil {
		names = a.AllowedTools(names)
	}
	reg := tools.NewRegistry()
	for _, n := range names {
		reg.Register(byName[n])
	}
	return reg
}

// asAgent makes the child's options those of agent a: its body as the
// system prompt (with the subagent note, the working directory and the
// closing Model:/Provider: lines), its tools, and its model when it names
// one (sent as is to the parent's provider). The approvals stay the
// parent's: the child asks through the same approver, in the same mode.
func (ts *toolset) asAgent(opts *loop.Options, a *ext.Agent) {
	opts.Tools = ts.childTools(a)
	if a.Model != "" && a.Model != opts.Model {
		opts.Model = a.Model
		if opts.Chain != nil {
			primary := opts.Chain.Primary()
			primary.Model = a.Model
			opts.Chain = providers.NewFallbackChain(primary, opts.Chain.Backends()[1:])
		}
		if opts.NewTransport != nil {
			opts.Transport = nil // built for the agent's model
		}
	}
	opts.SystemPrompt = agentPrompt(a, ts.env.Cwd, opts.Provider, opts.Model)
}

// agentPrompt is the system prompt of a child running as agent a.
func agentPrompt(a *ext.Agent, cwd, provider, model string) string {
	var b strings.Builder
	if a.Prompt != "" {
		b.WriteString(a.Prompt)
		b.WriteString("\n\n")
	}
	b.WriteString(subagentNote)
	fmt.Fprintf(&b, "\n\n# Environment\n- Working directory: %s\n", cwd)
	fmt.Fprintf(&b, "\nModel: %s\nProvider: %s", model, provider)
	return b.String()
}

// lookupAgent returns the agent a task names; nil for a general child.
func (ts *toolset) lookupAgent(name string) (*ext.Agent, error) {
	if name == "" {
		return nil, nil
	}
	if a, ok := ts.agents[name]; ok {
		return a, nil
	}
	return nil, fmt.Errorf("no agent %q in this session", name)
}
