package tools

import (
	"context"
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
	// ApprovalReadOnly is a plan mode: read-only tools run, and file
	// edits, commands and tools that are not read-only are refused with a
	// result saying the session is read-only.
	ApprovalReadOnly ApprovalMode = "read-only"
)

// Next returns the mode after m in the order Shift+Tab steps through
// them: ask → auto-edit → read-only → ask. Yolo is set only on purpose
// (/approvals yolo, --yolo); ask follows it.
func (m ApprovalMode) Next() ApprovalMode {
	switch m {
	case ApprovalAsk:
		return ApprovalAutoEdit
	case ApprovalAutoEdit:
		return ApprovalReadOnly
	}
	return ApprovalAsk
}

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
	case "read-only", "read_only", "readonly", "plan":
		return ApprovalReadOnly, nil
	}
	return "", fmt.Errorf("unknown approvals mode %q: use ask, auto-edit, read-only or yolo", s)
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
	// Paths are the absolute paths the call writes, as the tool will
	// resolve them (write_file, patch); empty for other tools.
	Paths []string
	// OutsideSandbox asks to run a command the sandbox stopped once
	// outside the sandbox (see Approver.Escalate).
	OutsideSandbox bool
	// Protected marks a write under a .git directory or under
	// $TALARIA_HOME: it is asked for in every mode but yolo, and never
	// for the session (NoSessionScope is set with it).
	Protected bool
	// Rule is the ask rule that made the approver ask ("" when none):
	// asked every time, never remembered (NoSessionScope is set with it).
	Rule string
	// Remember lists the "don't ask again" choices the dialog may offer
	// (this command, its prefix, the whole tool), each with the allow rule
	// it adds; empty when the call cannot be remembered. The dialog puts
	// the chosen one in ApprovalDecision.Remember.
	Remember []RememberOption
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
	// Remember, with Allow and a Scope of session, is the Scope of one of
	// the request's Remember options: the approver adds its rule for the
	// session (Approver.Remember). Empty keeps the session allow-list
	// described under Scope.
	Remember string
	// Save also writes the remembered rule to the project's
	// .talaria/config.yaml permissions.allow (Approver.SaveRule).
	Save bool
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
	// Tools, when set, gives each call's tool and its traits (without it
	// the built-in tools' are used). A tool whose read-only trait is only
	// Claimed (an MCP tool its server marks read-only) runs without
	// approval in the auto-edit, read-only and yolo modes, but is asked
	// for like any other tool in the ask mode. Tools not in the registry
	// are let through: the call fails anyway.
	Tools *Registry
	// Cwd is the working directory (empty: the process working
	// directory). Auto-edit and session-wide approvals cover only edits of
	// files that lie below it once symlinks are resolved; edits elsewhere
	// are asked for every time.
	Cwd string
	// Home is $TALARIA_HOME: writes below it (like writes below any .git
	// directory) always ask, in every mode but yolo.
	Home string
	// Sandboxed says that terminal and process commands run under an OS
	// sandbox: those KnownSafeCommand accepts (every part parsed and on
	// the known-safe list) then run without asking in the ask and
	// auto-edit modes; any other command still asks. Outside the sandbox
	// the stricter KnownSafeUnsandboxed list runs without asking in those
	// modes.
	Sandboxed bool
	// Rules are the configured permission rules (set before the first
	// Check): deny rules refuse in every mode, ask rules ask in every mode
	// but yolo, allow rules run a call without asking in the ask and
	// auto-edit modes, but never a write of a protected path.
	Rules Rules
	// Root is the project root the path globs of rules are relative to
	// (the git root above Cwd); empty means Cwd.
	Root string
	// SaveRule, when set, adds an allow rule to the project's config
	// (Remember with save).
	SaveRule func(rule string) error
	// Notice, when set, is told what a remembered choice did or why it
	// failed (a rule that could not be saved).
	Notice func(string)

	mu      sync.Mutex
	mode    ApprovalMode
	allowed map[string]bool
	// sessionRules are the allow rules remembered in this session.
	sessionRules []Rule
	promptMu     sync.Mutex
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
	// read-only: allowed without asking in the auto-edit mode.
	classClaimedReadOnly
	// classSandboxed is a known-safe command (KnownSafeCommand under the
	// OS sandbox, KnownSafeUnsandboxed outside it): allowed without asking
	// in the ask and auto-edit modes.
	classSandboxed
	// classInvalid is a call whose arguments the tool would refuse.
	classInvalid
	// classNetwork reads from the network and changes nothing locally
	// (web_fetch): not refused by the read-only mode, but asked for (the
	// session approval covers its domain) in every mode but yolo.
	classNetwork
)

// Check decides whether the call of toolName with the raw JSON args may
// run. When it may not, denial is the result to give the model instead of
// running the tool. It blocks while the user is asked, and honours ctx.
func (a *Approver) Check(ctx context.Context, toolName, args string) (allowed bool, denial Result) {
	v := a.classify(toolName, args)
	req, class, key := v.req, v.class, v.key
	mode := a.Mode()
	if class == classInvalid {
		// The tool would refuse the same arguments with the same words
		// before touching anything.
		return false, v.invalid
	}
	rc := a.ruleCallFor(toolName, args)
	if rc != nil {
		if r, ok := matchRule(a.rules().Deny, rc, sideDeny); ok {
			return false, Errorf("%s was not run: the permission rule %s (permissions.deny) forbids it (%s), in every approvals mode. "+
				"Do not retry it; continue another way, or ask the user to change the rule.", toolName, r.Text, req.Summary)
		}
	}
	// A PreToolUse hook's decision (tools/hooks.go) comes after the deny
	// rules: a hook never lifts one.
	hook := HookPermissionFrom(ctx)
	if hook == HookAsk && mode != ApprovalReadOnly {
		return a.hookAsk(ctx, toolName, req)
	}
	if class == classReadOnly || mode == ApprovalYolo {
		return true, Result{}
	}
	if mode == ApprovalReadOnly && class != classClaimedReadOnly && class != classNetwork {
		return false, Errorf("%s was not run: the session is read-only (approvals: read-only, a plan mode): file edits, commands and tools that change things are refused (%s). "+
			"Continue with read-only tools and describe the changes you would make; the user can switch modes with Shift+Tab or /approvals.", toolName, req.Summary)
	}
	var askRule Rule
	if rc != nil {
		if r, ok := matchRule(a.rules().Ask, rc, sideDeny); ok {
			askRule = r
			req.Rule, req.NoSessionScope = r.Text, true
			req.Summary += " [ask rule: " + r.Text + "]"
		}
	}
	if askRule.Text == "" && !req.Protected {
		switch {
		case hook == HookAllow:
			// A PreToolUse hook allowed it: no dialog (never past a deny
			// or ask rule or a protected path; the sandbox still applies).
			return true, Result{}
		case class == classEdit && mode == ApprovalAutoEdit && !req.Destructive:
			return true, Result{}
		case class == classClaimedReadOnly && (mode == ApprovalAutoEdit || mode == ApprovalReadOnly):
			// The server says it changes nothing: what the plan mode allows.
			return true, Result{}
		case class == classSandboxed:
			return true, Result{}
		}
		if rc != nil {
			if _, ok := a.allowRule(rc); ok {
				return true, Result{}
			}
		}
		if !req.NoSessionScope && a.isAllowed(key) {
			return true, Result{}
		}
	}
	req.Remember = rememberOptions(verdict{req: req, cmd: v.cmd, edits: v.edits})
	if a.Prompt == nil {
		how := "rerun with --yolo, set `approvals: yolo` in config.yaml (`approvals: auto-edit` only covers file edits inside the working directory), or add an allow rule to `permissions.allow` in config.yaml (e.g. " + exampleRule(req, v.cmd != "") + ")"
		switch {
		case askRule.Text != "":
			how = "rerun with --yolo, or remove the ask rule " + askRule.Text + " from permissions.ask"
		case req.Protected:
			how = "rerun with --yolo if you trust this edit of a protected path (.git or $TALARIA_HOME), or make the change yourself"
		case class == classEdit:
			how = "rerun with --yolo, or set `approvals: auto-edit` (file edits inside the working directory) or `approvals: yolo` (everything) in config.yaml"
		case class == classClaimedReadOnly:
			how = "rerun with --yolo, or set `approvals: auto-edit` (which also allows tools their MCP server marks read-only) or `approvals: yolo` (everything) in config.yaml"
		}
		return false, Errorf("%s was not run: it needs the user's approval (%s) and no user is available to approve it (headless run, approvals: %s). "+
			"To allow it, %s. Meanwhile, continue with read-only tools or explain what you would do.", toolName, req.Summary, mode, how)
	}
	a.promptMu.Lock()
	defer a.promptMu.Unlock()
	// Another call may have been allowed for the session while this one
	// waited for its turn.
	if askRule.Text == "" && !req.Protected && !req.NoSessionScope && a.isAllowed(key) {
		return true, Result{}
	}
	if askRule.Text == "" && !req.Protected && rc != nil {
		if _, ok := a.allowRule(rc); ok {
			return true, Result{}
		}
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
			if !strings.ContainsAny(r[len(r)-1:], ".!?") {
				msg += "." // the next sentence must not run into it
			}
		}
		msg += " Do not retry the same call; change your approach, or use clarify to ask what they want."
		return false, Result{Output: msg, IsError: true}
	}
	if d.Scope == ScopeSession && !req.NoSessionScope {
		if d.Remember == "" {
			a.mu.Lock()
			a.allowed[key] = true
			a.mu.Unlock()
		} else {
			rule, err := a.Remember(req, d.Remember, d.Save)
			a.notice(rule, d.Save, err)
		}
	}
	return true, Result{}
}

// isAllowed reports whether key is on the session allow-list.
func (a *Approver) isAllowed(key string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.allowed[key]
}

// notice tells Notice what remembering a choice did.
func (a *Approver) notice(rule string, saved bool, err error) {
	if a.Notice == nil {
		return
	}
	switch {
	case err != nil:
		a.Notice("approvals: " + err.Error())
	case rule != "" && saved:
		a.Notice("approvals: saved the allow rule " + rule + " to the project's config")
	case rule != "":
		a.Notice("approvals: allowed " + rule + " for this session")
	}
}

// exampleRule is an allow rule that would cover req, for a headless
// denial's hint; command marks a shell command (the permission rules
// spell command specifiers as Bash(...)).
func exampleRule(req ApprovalRequest, command bool) string {
	if command {
		return "Bash(git status:*)"
	}
	if validRuleToolName(req.Tool) {
		return req.Tool
	}
	return "TOOL"
}
