package app

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"talaria/loop"
	"talaria/loop/config"
	"talaria/providers"
	"talaria/tools"
	"talaria/tools/mcp"
)

// Interactive holds the callbacks a front end offers for questions that
// need a person: nil fields mean nobody is there (headless).
type Interactive struct {
	Approve func(ctx context.Context, req tools.ApprovalRequest) (tools.ApprovalDecision, error)
	Ask     func(ctx context.Context, question string, choices []string) (string, error)
}

// toolset is the session's tools: the registry, the environment the tools
// run in, the approval policy and the MCP servers.
type toolset struct {
	registry *tools.Registry
	env      tools.Env
	approver *tools.Approver
	mcp      *mcp.Manager
	warnings []string
	// parent is the options child agents are made from; /model replaces
	// it (see retarget), so subagents follow the session's backend.
	parent atomic.Pointer[loop.Options]
}

// buildTools wires the built-in tools, MCP servers and approvals. The
// delegate_task tool is registered now (AvailableBuiltins offers it only
// when Env.Delegate is set) and gets its child-agent factory later, from
// delegateTo, once the agent's options exist; until then it says so.
func buildTools(ctx context.Context, cfg config.Config, home string, env tools.Env, ui Interactive, todos []tools.TodoItem) (*toolset, error) {
	mode, err := tools.ParseApprovalMode(cfg.Approvals)
	if err != nil {
		return nil, usage("approvals: %v", err)
	}
	if env.Commands, err = commandPolicy(cfg, home, env.Cwd); err != nil {
		return nil, err
	}
	env.Todos, env.Ask = tools.NewTodoList(todos...), ui.Ask
	if env.Processes == nil {
		env.Processes = tools.NewProcessManager()
	}
	ts := &toolset{env: env}
	ts.env.Delegate = func(context.Context, tools.DelegateTask) tools.DelegateResult {
		return tools.DelegateResult{Err: fmt.Errorf("delegation is not available")}
	}
	ts.registry = tools.NewRegistry(tools.AvailableBuiltins(&ts.env)...)
	ts.approver = tools.NewApprover(mode, ui.Approve)
	ts.approver.Tools, ts.approver.Cwd, ts.approver.Home = ts.registry, env.Cwd, home
	ts.approver.Sandboxed = env.Commands.Sandbox != nil
	if ui.Approve != nil {
		ts.env.Escalate = ts.approver.Escalate
	}
	if len(cfg.MCPServers) > 0 {
		ts.connectMCP(ctx, cfg.MCPServers)
	}
	return ts, nil
}

func (ts *toolset) connectMCP(ctx context.Context, servers map[string]config.MCPServer) {
	names := make([]string, 0, len(servers))
	for n := range servers {
		names = append(names, n)
	}
	sort.Strings(names)
	cfgs := make([]mcp.ServerConfig, 0, len(names))
	for _, n := range names {
		s := servers[n]
		cfgs = append(cfgs, mcp.ServerConfig{Name: n, Command: s.Command, Args: s.Args, Env: s.Env, URL: s.URL,
			Reaper: ts.env.Processes.Reaper(), Environ: ts.env.Commands.Environ})
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	mgr, errs := mcp.Connect(cctx, cfgs)
	ts.mcp = mgr
	for _, e := range errs {
		ts.warnings = append(ts.warnings, "mcp: "+e.Error())
	}
	ts.registerMCP()
}

func (ts *toolset) registerMCP() {
	if ts.mcp == nil {
		return
	}
	for _, t := range ts.mcp.Tools() {
		ts.registry.Register(t)
	}
}

// beforeTurn reconnects dead MCP servers between turns.
func (ts *toolset) beforeTurn(ctx context.Context) {
	if ts.mcp == nil {
		return
	}
	_ = ts.mcp.Reconnect(ctx)
	ts.registerMCP()
}

func (ts *toolset) close() {
	if ts.env.Processes != nil {
		ts.env.Processes.Close()
	}
	if ts.mcp != nil {
		_ = ts.mcp.Close()
	}
	_ = ts.env.Processes.Reaper().Close()
}

// delegateTo makes delegate_task run each task in a child agent with its
// own budget (delegation.max_iterations) and the parent's backends, tools
// (minus delegate_task: one level deep) and approvals. The child's events
// become progress lines of the call's live output; its final answer is the
// summary.
func (ts *toolset) delegateTo(parent loop.Options, maxIterations int) {
	child := tools.NewRegistry()
	for _, t := range ts.registry.All() {
		if t.Name() != "delegate_task" {
			child.Register(t)
		}
	}
	var n atomic.Int64
	ts.parent.Store(&parent)
	ts.env.Delegate = func(ctx context.Context, task tools.DelegateTask) tools.DelegateResult {
		parent := *ts.parent.Load()
		opts := parent
		opts.SessionID = fmt.Sprintf("%s-sub%d", parent.SessionID, n.Add(1))
		opts.History, opts.Turns, opts.Store = nil, 0, nil
		opts.Sink, opts.Tools, opts.MaxIterations, opts.ToolEnv = loop.ChildProgress(tools.Output(ctx)), child, maxIterations, ts.env
		if parent.Chain != nil {
			opts.Chain = providers.NewFallbackChain(parent.Chain.Primary(), parent.Chain.Backends()[1:])
		}
		opts.SystemPrompt = subagentPrompt(parent.SystemPrompt)
		input := task.Goal
		if task.Context != "" {
			input += "\n\nContext from the parent agent:\n" + task.Context
		}
		res, err := loop.New(opts).Run(ctx, input)
		if err == nil && !res.Completed && res.FinalResponse == "" {
			err = fmt.Errorf("the subagent ended without an answer (%s)", res.ExitReason)
		}
		return tools.DelegateResult{Goal: task.Goal, Summary: res.FinalResponse, Err: err}
	}
}

// retarget makes later subagents use the backend /model switched to.
func (ts *toolset) retarget(b loop.BackendChange, systemPrompt string) {
	p := ts.parent.Load()
	if p == nil {
		return
	}
	next := *p
	next.Chain, next.Transport = b.Chain, b.Transport
	if b.NewTransport != nil {
		next.NewTransport = b.NewTransport
	}
	next.Provider, next.Model, next.MaxTokens, next.SystemPrompt = b.Provider, b.Model, b.MaxTokens, systemPrompt
	ts.parent.Store(&next)
}

// subagentNote tells a child agent what it is for.
const subagentNote = "You are a subagent working on one delegated task. Work only on it and finish with a concise summary of what you did and found: the summary is all the parent agent sees."

// subagentPrompt puts the subagent note before the closing Model:/Provider:
// lines, so those stay last and a fallback can still rewrite them.
func subagentPrompt(parent string) string {
	i := strings.LastIndex(parent, "\nModel: ")
	if i < 0 {
		return parent + "\n\n" + subagentNote
	}
	return parent[:i] + "\n\n" + subagentNote + parent[i:]
}
