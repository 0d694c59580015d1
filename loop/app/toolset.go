package app

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"

	"talaria/loop/config"
	"talaria/loop/ext"
	"talaria/tools"
	"talaria/tools/lsp"
	"talaria/tools/mcp"
)

// Interactive holds the callbacks a front end offers for questions that
// need a person: nil fields mean nobody is there (headless).
type Interactive struct {
	Approve func(ctx context.Context, req tools.ApprovalRequest) (tools.ApprovalDecision, error)
	Ask     func(ctx context.Context, question string, choices []string) (string, error)
	// Files, when set, is where the file tools read and write contents
	// (an editor's buffers over ACP); nil: the disk.
	Files tools.FileIO
}

// toolset is the session's tools: the registry, the environment the tools
// run in, the approval policy and the MCP servers.
type toolset struct {
	registry *tools.Registry
	env      tools.Env
	approver *tools.Approver
	mcp      *mcp.Manager
	lsp      *lsp.Manager // the language servers checking edits
	warnings []string
	// headless: a turn waits for MCP servers still starting; in the TUI
	// it goes on without them (the footer shows them starting).
	headless bool
	log      func(string)

	// promptMu guards the MCP part of the system prompt: a fresh
	// session's prompt is completed once, at its first turn, with the
	// servers' instructions, saved, and replayed byte for byte after.
	promptMu   sync.Mutex
	promptBase string // the prompt to complete; "" once done or when not fresh
	prompt     string // the completed prompt; "" keeps the agent's own
	savePrompt func(string) error

	// agents are the subagent definitions delegate_task offers by name.
	agents map[string]*ext.Agent
}

// buildTools wires the built-in tools, MCP servers and approvals. The
// delegate_task tool is registered now (AvailableBuiltins offers it only
// when Env.Delegate is set); the session's tool environment runs it
// (parts.delegate), this one's says it is unavailable. MCP
// servers start in the background; headless, buildTools waits for them
// (each within its startup_timeout) so that their errors are in warnings.
func buildTools(ctx context.Context, cfg config.Config, home string, env tools.Env, ui Interactive, todos []tools.TodoItem, headless bool, log func(string)) (*toolset, error) {
	mode, err := tools.ParseApprovalMode(cfg.Approvals)
	if err != nil {
		return nil, usage("approvals: %v", err)
	}
	if env.Commands, err = commandPolicy(cfg, home, env.Cwd); err != nil {
		return nil, err
	}
	env.Todos, env.Ask, env.Files = tools.NewTodoList(todos...), ui.Ask, ui.Files
	if env.Processes == nil {
		env.Processes = tools.NewProcessManager()
	}
	env.Home = home // the write tools re-check protected paths at write time
	servers, lspWarnings := lspServers(cfg.LSP)
	ts := &toolset{env: env, headless: headless, log: log, warnings: lspWarnings}
	environ := env.Commands.Environ
	if environ == nil { // the servers get what commands get: no secrets
		environ = tools.FilterEnviron(os.Environ(), nil, nil)
	}
	ts.lsp = lsp.New(lsp.Options{Servers: servers, Wait: cfg.LSP.Wait, MaxDiagnostics: cfg.LSP.MaxDiagnostics,
		Cwd: env.Cwd, Environ: environ, Track: env.Processes.Reaper().Track})
	ts.env.Edits = ts.lsp
	if ts.log == nil {
		ts.log = func(string) {}
	}
	ts.env.Delegate = func(context.Context, tools.DelegateTask) tools.DelegateResult {
		return tools.DelegateResult{Err: fmt.Errorf("delegation is not available")}
	}
	ts.registry = tools.NewRegistry(tools.AvailableBuiltins(&ts.env)...)
	if py := tools.FindPython(); py != "" {
		timeout, calls := cfg.Tools.ExecuteCode.Limits()
		ts.registry.Register(tools.ExecuteCodeTool{Python: py, Registry: ts.registry, Timeout: timeout, MaxInnerCalls: calls})
	} else {
		ts.warnings = append(ts.warnings, "execute_code is not offered: python3 was not found on PATH")
	}
	ts.approver = tools.NewApprover(mode, ui.Approve)
	ts.approver.Tools, ts.approver.Cwd, ts.approver.Home = ts.registry, env.Cwd, home
	ts.approver.Sandboxed = env.Commands.Sandbox != nil
	if err := ts.setRules(cfg); err != nil {
		return nil, err
	}
	if ui.Approve != nil {
		ts.env.Escalate = ts.approver.Escalate
	}
	if len(cfg.MCPServers) > 0 {
		ts.connectMCP(ctx, cfg.MCPServers)
	}
	return ts, nil
}

// setRules gives the approver the permission rules of cfg, its project
// root for path globs (as loop/ext.ProjectRoot finds it), and where "don't ask again" rules are saved (the
// project's .talaria/config.yaml).
func (ts *toolset) setRules(cfg config.Config) error {
	rules, err := cfg.Permissions.Rules()
	if err != nil {
		return usage("permissions: %v", err)
	}
	root := gitRoot(ts.env.Cwd) // the project: the git root above the working directory, or it
	if root == "" {
		root = ts.env.Cwd
	}
	file := config.ProjectConfigFile(root)
	ts.approver.Rules, ts.approver.Root = rules, root
	ts.approver.SaveRule = func(rule string) error { return config.AddAllowRule(file, rule) }
	ts.approver.Notice = ts.log
	return nil
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
			Reaper: ts.env.Processes.Reaper(), Environ: ts.env.Commands.Environ,
			StartupTimeout: s.StartupTimeout, ToolTimeout: s.ToolTimeout})
	}
	mgr, errs := mcp.Start(cfgs, mcp.Options{Log: ts.log})
	ts.mcp = mgr
	for _, t := range mgr.ResourceTools() {
		ts.registry.Register(t)
	}
	for _, e := range errs {
		ts.warnings = append(ts.warnings, "mcp: "+e.Error())
	}
	if !ts.headless {
		return // the TUI shows the servers starting and takes MCPNotices
	}
	_ = mgr.Wait(ctx) // why a server is down is among the notices
	ts.registerMCP()
	for _, n := range mgr.Notices() {
		ts.warnings = append(ts.warnings, "mcp: "+n)
	}
}

// registerMCP offers the tools of the servers connected now.
func (ts *toolset) registerMCP() {
	if ts.mcp == nil {
		return
	}
	for _, t := range ts.mcp.Tools() {
		ts.registry.Register(t)
	}
}

// MCPStarting returns the MCP servers still starting, for the footer.
func (ts *toolset) MCPStarting() []string {
	if ts.mcp == nil {
		return nil
	}
	return ts.mcp.Starting()
}

// Instructions returns the instructions of the connected MCP servers, by
// server name.
func (ts *toolset) Instructions() map[string]string {
	if ts.mcp == nil {
		return nil
	}
	return ts.mcp.Instructions()
}

// beforeTurn starts dead MCP servers again between turns and offers the
// tools of those that are up. Headless, and at the first turn of a fresh
// session (whose prompt takes the servers' instructions), the turn waits
// for servers still starting, each within its startup_timeout; otherwise
// the TUI goes on without them.
func (ts *toolset) beforeTurn(ctx context.Context) {
	if ts.mcp == nil {
		return
	}
	ts.promptMu.Lock()
	first := ts.promptBase != ""
	ts.promptMu.Unlock()
	if ts.headless || first {
		_ = ts.mcp.Reconnect(ctx)
		_ = ts.mcp.Wait(ctx)
	} else {
		ts.mcp.Retry()
	}
	ts.registerMCP()
	if ts.headless {
		_ = ts.mcp.Notices() // logged already; headless shows them at start only
	}
	if first {
		ts.completePrompt()
	}
}

// completePromptOnce arranges for base, the prompt of a session that has
// not run a turn yet, to be completed with the MCP servers' instructions at the first
// turn and saved with save.
func (ts *toolset) completePromptOnce(base string, save func(string) error) {
	if ts.mcp == nil {
		return
	}
	ts.promptMu.Lock()
	defer ts.promptMu.Unlock()
	ts.promptBase, ts.savePrompt = base, save
}

// completePrompt adds the instructions section to the fresh prompt, once.
func (ts *toolset) completePrompt() {
	ts.promptMu.Lock()
	defer ts.promptMu.Unlock()
	base := ts.promptBase
	ts.promptBase = ""
	section := mcpInstructionsSection(ts.Instructions())
	if base == "" || section == "" || strings.Contains(base, mcpSectionTitle) {
		return
	}
	ts.prompt = insertBeforeRuntimeLines(base, section)
	if ts.savePrompt != nil {
		if err := ts.savePrompt(ts.prompt); err != nil {
			ts.log("WARN saving the system prompt with MCP instructions: " + err.Error())
		}
	}
}

// turnPrompt is loop.Options.TurnSystemPrompt: the completed prompt, or ""
// to keep the stored one.
func (ts *toolset) turnPrompt() string {
	ts.promptMu.Lock()
	defer ts.promptMu.Unlock()
	return ts.prompt
}

// mcpSectionTitle opens the MCP instructions section of the prompt.
const mcpSectionTitle = "# MCP server instructions\n"

// mcpInstructionsSection renders the servers' instructions, by server
// name, as a prompt section; "" when there are none.
func mcpInstructionsSection(ins map[string]string) string {
	if len(ins) == 0 {
		return ""
	}
	names := make([]string, 0, len(ins))
	for n := range ins {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString(mcpSectionTitle)
	b.WriteString("Each MCP server's tools are named SERVER__TOOL. What the servers say about using them:\n")
	for _, n := range names {
		fmt.Fprintf(&b, "## %s\n%s\n", n, ins[n])
	}
	return strings.TrimRight(b.String(), "\n")
}

func (ts *toolset) close() {
	if ts.env.Processes != nil {
		ts.env.Processes.Close()
	}
	if ts.mcp != nil {
		_ = ts.mcp.Close()
	}
	_ = ts.lsp.Close()
	_ = ts.env.Processes.Reaper().Close()
}

// insertBeforeRuntimeLines puts section, after a blank line, before the
// closing Model:/Provider: lines of prompt (at its end when it has none).
func insertBeforeRuntimeLines(prompt, section string) string {
	i := strings.LastIndex(prompt, "\nModel: ")
	if i < 0 {
		return prompt + "\n\n" + section
	}
	return strings.TrimRight(prompt[:i], "\n") + "\n\n" + section + "\n" + prompt[i:]
}

// MCPNotices returns, once each, what the TUI should tell about the MCP
// servers (a server that could not start, a tool not offered).
func (s *Session) MCPNotices() []string {
	if s == nil || s.tools == nil || s.tools.mcp == nil {
		return nil
	}
	return s.tools.mcp.Notices()
}

// MCPStarting returns the names of the session's MCP servers still
// starting (for the footer); nil when none is.
func (s *Session) MCPStarting() []string {
	if s == nil || s.tools == nil {
		return nil
	}
	return s.tools.MCPStarting()
}
