package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// ApprovalMode says which tool calls need the user's approval.
type ApprovalMode string

// The approval modes, as written in config.yaml (approvals:).
const (
	// ApprovalAsk asks before file edits, commands and other tools that
	// change things.
	ApprovalAsk ApprovalMode = "ask"
	// ApprovalAutoEdit allows file edits inside the working directory
	// without asking and asks before commands.
	ApprovalAutoEdit ApprovalMode = "auto-edit"
	// ApprovalYolo allows everything without asking.
	ApprovalYolo ApprovalMode = "yolo"
)

// ParseApprovalMode parses a mode from config or flags; "" means ask and
// "auto_edit" is accepted for auto-edit.
func ParseApprovalMode(s string) (ApprovalMode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "ask":
		return ApprovalAsk, nil
	case "auto-edit", "auto_edit", "autoedit":
		return ApprovalAutoEdit, nil
	case "yolo":
		return ApprovalYolo, nil
	}
	return "", fmt.Errorf("unknown approvals mode %q: use ask, auto-edit or yolo", s)
}

// Approval scopes of an ApprovalDecision.
const (
	ScopeOnce    = "once"
	ScopeSession = "session"
)

// ApprovalRequest is what the user is asked to approve.
type ApprovalRequest struct {
	// Tool is the tool's name.
	Tool string
	// Summary says in one line what the call will do, e.g. "Run: make
	// test" or "Edit: main.go, go.mod".
	Summary string
	// Destructive marks a command that matched the destructive-command
	// heuristic; a session-wide approval is not offered for it (a Scope
	// of session is taken as once). NoSessionScope is always set with it.
	Destructive bool
	// NoSessionScope says that the call cannot be allowed for the session:
	// the UI must not offer "allow for this session", and a Scope of
	// session is taken as once. It is set for destructive commands and
	// for file edits that reach outside the working directory.
	NoSessionScope bool
	// Args is the raw JSON arguments of the call.
	Args string
}

// ApprovalDecision is the user's answer to an ApprovalRequest.
type ApprovalDecision struct {
	// Allow runs the call; false denies it.
	Allow bool
	// Scope is ScopeOnce or ScopeSession: for the rest of the session,
	// allow this exact command (terminal), edits by this tool of files
	// inside the working directory (write_file, patch), or this tool
	// (the others). It is taken as once when the request has
	// NoSessionScope.
	Scope string
	// Reason is the user's explanation of a denial; the model reads it.
	Reason string
}

// Approver decides whether a tool call may run: read-only tools always, the
// others depending on the mode, a session allow-list and, when needed, the
// user's answer through Prompt. Create it with NewApprover and set Tools
// and Cwd before the first Check. It is safe for concurrent use; prompts
// are put to the user one at a time. Its Check has the signature of
// loop.Options.Approve.
type Approver struct {
	// Prompt asks the user; nil means no user is there (headless), and
	// calls that need approval are then denied with a result saying how
	// to allow them.
	Prompt func(ctx context.Context, req ApprovalRequest) (ApprovalDecision, error)
	// Tools, when set, is consulted for tools not known here: a tool with
	// a ReadOnly() bool method returning true (an MCP tool its server
	// marks read-only) runs without approval in the auto-edit and yolo
	// modes, but is asked for like any other tool in the ask mode, since
	// the mark is only the server's claim. Tools not in the registry are
	// let through: the call fails anyway.
	Tools *Registry
	// Cwd is the working directory (empty: the process working
	// directory). Auto-edit and session-wide approvals cover only edits of
	// files that lie below it once symlinks are resolved; edits elsewhere
	// are asked for every time.
	Cwd string

	mu       sync.Mutex
	mode     ApprovalMode
	allowed  map[string]bool
	promptMu sync.Mutex
}

// NewApprover returns an Approver in mode with the given prompt (nil for
// headless).
func NewApprover(mode ApprovalMode, prompt func(ctx context.Context, req ApprovalRequest) (ApprovalDecision, error)) *Approver {
	if mode == "" {
		mode = ApprovalAsk
	}
	return &Approver{Prompt: prompt, mode: mode, allowed: map[string]bool{}}
}

// Mode returns the current mode.
func (a *Approver) Mode() ApprovalMode {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.mode
}

// SetMode changes the mode for the following calls.
func (a *Approver) SetMode(m ApprovalMode) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.mode = m
}

// SessionAllowed lists the session allow-list: tool names,
// "write_file:cwd" and "patch:cwd" for edits inside the working directory,
// and "terminal: COMMAND" for commands allowed exactly.
func (a *Approver) SessionAllowed() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]string, 0, len(a.allowed))
	for k := range a.allowed {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// approvalClass is how a call is treated.
type approvalClass int

const (
	classReadOnly approvalClass = iota
	classEdit                   // file edits inside cwd: auto-edit allows them
	classExec                   // commands and other side effects
	// classClaimedReadOnly is a registry tool (MCP) that says it is
	// read-only: allowed without asking except in the ask mode.
	classClaimedReadOnly
)

// Check decides whether the call of toolName with the raw JSON args may
// run. When it may not, denial is the result to give the model instead of
// running the tool. It blocks while the user is asked, and honours ctx.
func (a *Approver) Check(ctx context.Context, toolName, args string) (allowed bool, denial Result) {
	req, class, key := a.classify(toolName, args)
	if class == classReadOnly {
		return true, Result{}
	}
	mode := a.Mode()
	switch {
	case mode == ApprovalYolo:
		return true, Result{}
	case class == classEdit && mode == ApprovalAutoEdit && !req.Destructive:
		return true, Result{}
	case class == classClaimedReadOnly && mode != ApprovalAsk:
		return true, Result{}
	}
	if !req.NoSessionScope && a.isAllowed(key) {
		return true, Result{}
	}
	if a.Prompt == nil {
		how := "rerun with --yolo or set `approvals: yolo` in config.yaml (`approvals: auto-edit` only covers file edits inside the working directory)"
		switch class {
		case classEdit:
			how = "rerun with --yolo, or set `approvals: auto-edit` (file edits inside the working directory) or `approvals: yolo` (everything) in config.yaml"
		case classClaimedReadOnly:
			how = "rerun with --yolo, or set `approvals: auto-edit` (which also allows tools their MCP server marks read-only) or `approvals: yolo` (everything) in config.yaml"
		}
		return false, Errorf("%s was not run: it needs the user's approval (%s) and no user is available to approve it (headless run, approvals: %s). "+
			"To allow it, %s. Meanwhile, continue with read-only tools or explain what you would do.", toolName, req.Summary, mode, how)
	}
	a.promptMu.Lock()
	defer a.promptMu.Unlock()
	// Another call may have been allowed for the session while this one
	// waited for its turn.
	if !req.NoSessionScope && a.isAllowed(key) {
		return true, Result{}
	}
	if ctx.Err() != nil {
		return false, Errorf("%s was not run: the turn was cancelled while it waited for approval", toolName)
	}
	d, err := a.Prompt(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return false, Errorf("%s was not run: the turn was cancelled while it waited for approval", toolName)
		}
		return false, Errorf("%s was not run: asking for approval failed: %v", toolName, err)
	}
	if !d.Allow {
		msg := fmt.Sprintf("The user denied this %s call (%s).", toolName, req.Summary)
		if r := strings.TrimSpace(d.Reason); r != "" {
			msg += " Their reason: " + r
		}
		msg += " Do not retry the same call; change your approach, or use clarify to ask what they want."
		return false, Result{Output: msg, IsError: true}
	}
	if d.Scope == ScopeSession && !req.NoSessionScope {
		a.mu.Lock()
		a.allowed[key] = true
		a.mu.Unlock()
	}
	return true, Result{}
}

// isAllowed reports whether key is on the session allow-list.
func (a *Approver) isAllowed(key string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.allowed[key]
}

// classify builds the request for a call, its class and its allow-list key.
// Edits are keyed by tool and "cwd"; an edit reaching outside the working
// directory is classExec with NoSessionScope set.
func (a *Approver) classify(toolName, args string) (ApprovalRequest, approvalClass, string) {
	req := ApprovalRequest{Tool: toolName, Args: args, Summary: "call " + toolName}
	var m map[string]any
	_ = json.Unmarshal([]byte(args), &m)
	str := func(k string) string { s, _ := m[k].(string); return strings.TrimSpace(s) }
	switch toolName {
	case "read_file", "search_files", "session_search", "todo", "clarify", "delegate_task", "list_mcp_resources", "read_mcp_resource":
		return req, classReadOnly, toolName
	case "terminal":
		cmd := str("command")
		req.Summary = "Run: " + clip(cmd, 300)
		if b, _ := m["background"].(bool); b {
			req.Summary = "Run in the background: " + clip(cmd, 300)
		}
		if ok, why := IsDestructiveCommand(cmd); ok {
			req.Destructive, req.NoSessionScope = true, true
			req.Summary += " [destructive: " + why + "]"
		}
		return req, classExec, "terminal: " + cmd
	case "process":
		if strings.ToLower(str("action")) != "kill" {
			return req, classReadOnly, toolName
		}
		req.Summary = "Kill background process " + str("id")
		return req, classExec, "process kill"
	case "write_file":
		p := str("path")
		req.Summary = "Write: " + p
		return a.editRequest(req, []string{p})
	case "patch":
		paths := []string{str("path")}
		if patchIsV4A(args) {
			paths = v4aPaths(str("patch"))
		}
		req.Summary = "Edit: " + strings.Join(paths, ", ")
		return a.editRequest(req, paths)
	}
	if a.Tools != nil {
		t, ok := a.Tools.Get(toolName)
		if !ok {
			return req, classReadOnly, toolName
		}
		if ro, ok := t.(interface{ ReadOnly() bool }); ok && ro.ReadOnly() {
			return req, classClaimedReadOnly, toolName
		}
	}
	if len(args) > 2 {
		req.Summary = fmt.Sprintf("call %s %s", toolName, clip(args, 300))
	}
	return req, classExec, toolName
}

// editRequest classifies an edit of paths: classEdit with the key
// "TOOL:cwd" when every path lies below a.Cwd once symlinks are resolved,
// else classExec with NoSessionScope set, so that auto-edit asks before
// edits elsewhere and no session approval covers them.
func (a *Approver) editRequest(req ApprovalRequest, paths []string) (ApprovalRequest, approvalClass, string) {
	for _, p := range paths {
		if !resolvesWithin(a.Cwd, p) {
			req.NoSessionScope = true
			return req, classExec, req.Tool + ":outside"
		}
	}
	return req, classEdit, req.Tool + ":cwd"
}

// v4aPaths lists the paths named in the headers of a V4A patch, in order.
func v4aPaths(patch string) []string {
	var out []string
	for _, l := range strings.Split(patch, "\n") {
		verb, arg, ok := v4aHeader(l)
		if !ok || arg == "" {
			continue
		}
		if verb == "Move File" {
			from, to, _ := strings.Cut(arg, "->")
			out = append(out, strings.TrimSpace(from), strings.TrimSpace(to))
			continue
		}
		out = append(out, arg)
	}
	if len(out) == 0 {
		out = []string{"(no file)"}
	}
	return out
}
