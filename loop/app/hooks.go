package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"talaria/loop"
	"talaria/loop/config"
	"talaria/loop/ext"
	"talaria/persist"
	"talaria/tools"
)

// Hook wiring bounds.
const (
	// sessionEndBudget bounds the SessionEnd hooks at close (Claude
	// Code's 1.5 s).
	sessionEndBudget = 1500 * time.Millisecond
	// maxTranscriptBytes caps the JSON Lines export written for a hook's
	// transcript_path; a longer session is cut at that size.
	maxTranscriptBytes = 32 << 20
	// maxHookMessage caps hook.completed's message.
	maxHookMessage = 2000
)

// sessionHooks runs the session's hooks (the user's, and a trusted
// project's) for the engine: it fills loop.Hooks, writes the transcript
// each run reads, and reports every run as hook.completed.
type sessionHooks struct {
	// live is the runner in use; TrustProject swaps in one with the
	// project's hooks added.
	live      atomic.Pointer[ext.Runner]
	cwd       string // the session's working directory (stdin's cwd)
	sessionID string
	home      string
	store     *persist.Store
	approver  *tools.Approver
	registry  *tools.Registry
	// emit delivers hook.completed (the agent's Emit, once it exists).
	emit func(loop.Event)

	// base ends with the session: asynchronous hooks (Notification) run
	// under it and Close waits for them.
	base   context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	pending []string // SessionStart context for the next prompt

	// rules are the session's permission rules by source (trust_rules.go),
	// and trusted whether the project's settings apply; both guarded by
	// the session's trustMu.
	rules   projectRules
	trusted bool
}

// hookPlan is what openHooks found: the hooks that apply, those of an
// untrusted project (listed, not run) and a notice for the user ("" when
// there is nothing to say).
type hookPlan struct {
	hooks     []ext.Hook
	untrusted []ext.Hook
	root      string
	notice    string
}

// planHooks compiles the user's hooks (config.yaml's hooks:) and the
// project's (.talaria/config.yaml, and .claude/settings.json with
// extensions.claude_dirs), the project's only when it is trusted: by
// --trust or trusted_projects. An untrusted project's hooks are listed in
// one notice and never run.
func planHooks(cfg config.Config, userConfig, cwd string, trust bool) hookPlan {
	var p hookPlan
	var notes []string
	user, ns := ext.CompileHooks(cfg.Hooks, ext.Source{Path: userConfig, Origin: ext.OriginHome, Tree: "$TALARIA_HOME"})
	for _, n := range ns {
		notes = append(notes, "hooks: "+n.String())
	}
	p.hooks = user
	root := ext.ProjectRoot(cwd)
	p.root = root
	proj, ns := ext.ProjectHooks(root, cfg.Extensions.ReadClaudeDirs())
	for _, n := range ns {
		notes = append(notes, "hooks: "+n.String())
	}
	// The user's own config.yaml seen as a project file (talaria run in
	// the folder above $TALARIA_HOME) is not a project's.
	proj = dropSameFile(proj, userConfig)
	if len(proj) > 0 {
		if trust || ext.Trusted(root, cfg.TrustedProjects) {
			p.hooks = append(p.hooks, proj...)
		} else {
			p.untrusted = proj
			files := map[string]bool{}
			var list []string
			for _, h := range proj {
				if !files[h.Source.Path] {
					files[h.Source.Path] = true
					list = append(list, h.Source.Path)
				}
			}
			notes = append(notes, fmt.Sprintf("%d hook(s) of the untrusted project %s not run (%s); trust it with --trust or trusted_projects in the user's config.yaml (talaria extensions lists them)",
				len(proj), root, strings.Join(list, ", ")))
		}
	}
	p.notice = strings.Join(notes, "; ")
	return p
}

func dropSameFile(hooks []ext.Hook, file string) []ext.Hook {
	if file == "" {
		return hooks
	}
	same := func(a string) bool {
		ra, err1 := filepath.EvalSymlinks(a)
		rb, err2 := filepath.EvalSymlinks(file)
		return err1 == nil && err2 == nil && ra == rb
	}
	out := hooks[:0:0]
	for _, h := range hooks {
		if !same(h.Source.Path) {
			out = append(out, h)
		}
	}
	return out
}

// newSessionHooks returns the runner for the hooks of a session in dir:
// they run in the project's root (dir's git root, or dir: where the
// project's settings were read; TALARIA_PROJECT_DIR) with env (the
// scrubbed environment commands get). With no hooks it costs a length
// check per event.
func newSessionHooks(hooks []ext.Hook, dir string, env []string, s *Session, ts *toolset) *sessionHooks {
	h := &sessionHooks{
		cwd:       dir,
		sessionID: s.Record.ID, home: s.Home, store: s.Store,
		approver: ts.approver, registry: ts.registry,
		emit: func(loop.Event) {},
	}
	h.live.Store(&ext.Runner{Hooks: hooks, Dir: ext.ProjectRoot(dir), Env: env})
	h.base, h.cancel = context.WithCancel(context.Background())
	return h
}

// runner is the runner in use.
func (h *sessionHooks) runner() *ext.Runner { return h.live.Load() }

// none reports a session without any hook: the engine's hooks return at
// once.
func (h *sessionHooks) none() bool { return len(h.runner().Hooks) == 0 }

// add makes more hooks apply from the next event on.
func (h *sessionHooks) add(more []ext.Hook) {
	old := h.runner()
	next := *old
	next.Hooks = append(append([]ext.Hook(nil), old.Hooks...), more...)
	h.live.Store(&next)
}

// loopHooks is the engine's view of the hooks; the zero value without any.
func (h *sessionHooks) loopHooks() loop.Hooks {
	if h == nil {
		return loop.Hooks{}
	}
	return loop.Hooks{PreTool: h.preTool, PostTool: h.postTool, PromptSubmit: h.promptSubmit,
		Stop: h.stopper(ext.Stop), SubagentStop: h.stopper(ext.SubagentStop), PreCompact: h.preCompact}
}

// run runs event's matching hooks with in, the transcript written for
// them, and reports each as hook.completed (toolID: the call it ran for).
func (h *sessionHooks) run(ctx context.Context, event string, in ext.Input, toolID string) ext.Result {
	r := h.runner()
	if len(r.Matching(event, &in)) == 0 {
		return ext.Result{Event: event}
	}
	in.SessionID, in.Cwd = h.sessionID, h.cwd
	if h.approver != nil {
		in.PermissionMode = string(h.approver.Mode())
	}
	path, cleanup := h.transcript()
	defer cleanup()
	in.TranscriptPath = path
	res := r.Run(ctx, event, in)
	for i := range res.Outcomes {
		h.report(event, &res.Outcomes[i], toolID, in.ToolName)
	}
	return res
}

// report emits one hook's hook.completed.
func (h *sessionHooks) report(event string, o *ext.Outcome, toolID, tool string) {
	e := loop.NewHookCompleted()
	e.Event, e.Command, e.ExitCode, e.DurationMS = event, o.Hook.Command, o.ExitCode, o.Duration.Milliseconds()
	e.Decision, e.Failed, e.ToolCallID, e.Tool = o.Label(event), o.Failed(), toolID, tool
	switch {
	case o.TimedOut:
		e.Message = fmt.Sprintf("timed out after %s and was killed", o.Hook.Timeout)
	case o.Canceled:
		e.Message = "cancelled (interrupt)"
	case o.StartErr != "":
		e.Message = "could not run: " + o.StartErr
	case strings.TrimSpace(o.Stderr) != "" && (o.ExitCode != 0 || e.Decision != ""):
		e.Message = o.Stderr
	case o.Output != nil && o.Output.Reason != "":
		e.Message = o.Output.Reason
	case o.Output != nil && o.Output.HookSpecificOutput != nil && o.Output.HookSpecificOutput.PermissionDecisionReason != "":
		e.Message = o.Output.HookSpecificOutput.PermissionDecisionReason
	}
	e.Message = capRunes(strings.TrimSpace(e.Message), maxHookMessage)
	h.emit(e)
}

func capRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// transcript writes the session's log as JSON Lines (talaria export's
// form: what the store holds, masked) to a file under
// $TALARIA_HOME/tmp for one hook run, capped at maxTranscriptBytes; the
// returned cleanup removes it. On failure the path is "".
func (h *sessionHooks) transcript() (string, func()) {
	none := func() {}
	if h.store == nil {
		return "", none
	}
	dir := filepath.Join(h.home, "tmp")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", none
	}
	f, err := os.CreateTemp(dir, "hook-transcript-*.jsonl")
	if err != nil {
		return "", none
	}
	name := f.Name()
	w := &limitWriter{w: f, left: maxTranscriptBytes}
	err = h.store.ExportSession(w, h.sessionID)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil && !errors.Is(err, errTranscriptFull) {
		_ = os.Remove(name)
		return "", none
	}
	return name, func() { _ = os.Remove(name) }
}

var errTranscriptFull = errors.New("transcript cap reached")

// limitWriter writes at most left bytes, then fails with
// errTranscriptFull (the export stops there).
type limitWriter struct {
	w    interface{ Write([]byte) (int, error) }
	left int64
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if int64(len(p)) > l.left {
		return 0, errTranscriptFull
	}
	n, err := l.w.Write(p)
	l.left -= int64(n)
	return n, err
}

// preTool is PreToolUse: only for a known tool whose arguments decode.
func (h *sessionHooks) preTool(ctx context.Context, c tools.BatchCall) tools.HookVerdict {
	if h.none() {
		return tools.HookVerdict{}
	}
	in, ok := hookToolInput(c.Arguments)
	if _, known := h.registry.Get(c.Name); !ok || !known || (h.approver != nil && h.approver.Invalid(c.Name, c.Arguments) != nil) {
		return tools.HookVerdict{} // the call fails with its own error
	}
	res := h.run(ctx, ext.PreToolUse, ext.Input{ToolName: c.Name, ToolInput: in, ToolUseID: c.ID}, c.ID)
	d := res.Decision
	v := tools.HookVerdict{PermissionReason: d.PermissionReason}
	switch {
	case d.Block || d.Permission == ext.PermissionDeny:
		v.Block, v.Permission = true, tools.HookDeny
		v.Reason = d.Reason
		if v.Reason == "" {
			v.Reason = d.PermissionReason
		}
	case d.Permission == ext.PermissionAsk:
		v.Permission = tools.HookAsk
	case d.Permission == ext.PermissionAllow:
		v.Permission = tools.HookAllow
	}
	return v
}

// hookToolInput is the call's arguments as the JSON object a hook reads
// as tool_input ({} when empty); false when they are not one (the tool
// refuses them, so no hook runs: a hook never gets a stdin without them).
func hookToolInput(args string) (json.RawMessage, bool) {
	if strings.TrimSpace(args) == "" {
		return json.RawMessage("{}"), true
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(args), &obj); err != nil || obj == nil {
		return nil, false
	}
	return json.RawMessage(args), true
}

// postTool is PostToolUse: tool_response is {"output", "is_error"}; the
// hooks' additionalContext and a block's reason go back to the model.
func (h *sessionHooks) postTool(ctx context.Context, c tools.BatchCall, r tools.Result) string {
	if h.none() {
		return ""
	}
	in, ok := hookToolInput(c.Arguments)
	if _, known := h.registry.Get(c.Name); !ok || !known {
		return ""
	}
	resp, _ := json.Marshal(struct {
		Output  string `json:"output"`
		IsError bool   `json:"is_error"`
	}{r.Output, r.IsError})
	res := h.run(ctx, ext.PostToolUse, ext.Input{ToolName: c.Name, ToolInput: in, ToolUseID: c.ID, ToolResponse: resp}, c.ID)
	d := res.Decision
	var parts []string
	if d.Block {
		reason := d.Reason
		if reason == "" {
			reason = "no reason given"
		}
		parts = append(parts, "A hook objected to this result: "+reason)
	}
	parts = append(parts, d.Context...)
	return strings.Join(parts, "\n")
}

// promptSubmit is UserPromptSubmit; it also hands over the SessionStart
// context still pending.
func (h *sessionHooks) promptSubmit(ctx context.Context, prompt string) loop.PromptVerdict {
	h.mu.Lock()
	ctxs := h.pending
	h.pending = nil
	h.mu.Unlock()
	res := h.run(ctx, ext.UserPromptSubmit, ext.Input{Prompt: prompt}, "")
	d := res.Decision
	if d.Block || d.Stop {
		reason := d.Reason
		if reason == "" {
			reason = d.StopReason
		}
		return loop.PromptVerdict{Block: true, Reason: reason}
	}
	ctxs = append(ctxs, d.Context...)
	if len(ctxs) == 0 {
		return loop.PromptVerdict{}
	}
	return loop.PromptVerdict{Context: "[Context added by hooks]\n" + strings.Join(ctxs, "\n")}
}

// stopper is Stop (or SubagentStop): a block's reason makes the turn go on.
func (h *sessionHooks) stopper(event string) func(ctx context.Context, active bool, last string) string {
	return func(ctx context.Context, active bool, last string) string {
		res := h.run(ctx, event, ext.Input{StopHookActive: &active, LastAssistantMessage: last}, "")
		d := res.Decision
		if !d.Block || d.Stop {
			return ""
		}
		if d.Reason == "" {
			return "a " + event + " hook asked to go on"
		}
		return d.Reason
	}
}

// preCompact is PreCompact: true skips the compression pass.
func (h *sessionHooks) preCompact(ctx context.Context, trigger string) bool {
	return h.run(ctx, ext.PreCompact, ext.Input{Trigger: trigger}, "").Decision.Block
}

// sessionStart runs SessionStart (source startup or resume); its context
// goes with the next prompt, its messages are returned for the notice.
func (h *sessionHooks) sessionStart(ctx context.Context, source string) string {
	if h == nil {
		return ""
	}
	d := h.run(ctx, ext.SessionStart, ext.Input{Source: source}, "").Decision
	if len(d.Context) > 0 {
		h.mu.Lock()
		h.pending = append(h.pending, d.Context...)
		h.mu.Unlock()
	}
	return strings.Join(d.Messages, "; ")
}

// notify runs the Notification hooks in the background (an approval is
// waiting); Close waits for them.
func (h *sessionHooks) notify(message, kind string) {
	if h == nil || len(h.runner().Matching(ext.Notification, &ext.Input{NotificationType: kind})) == 0 {
		return
	}
	h.wg.Go(func() {
		h.run(h.base, ext.Notification, ext.Input{Message: message, NotificationType: kind}, "")
	})
}

// close runs SessionEnd (bounded by sessionEndBudget) and ends the
// background hooks.
func (h *sessionHooks) close(reason string) {
	if h == nil {
		return
	}
	ctx, cancel := context.WithTimeout(h.base, sessionEndBudget)
	h.run(ctx, ext.SessionEnd, ext.Input{Reason: reason}, "")
	cancel()
	h.cancel()
	h.wg.Wait()
}

// withNotification wraps the UI's approval prompt so Notification hooks
// hear that an approval waits (Claude Code's permission_prompt).
func withNotification(ui Interactive, hooks func() *sessionHooks) Interactive {
	if ui.Approve == nil {
		return ui
	}
	prompt := ui.Approve
	ui.Approve = func(ctx context.Context, req tools.ApprovalRequest) (tools.ApprovalDecision, error) {
		if h := hooks(); h != nil {
			h.notify("talaria needs your permission: "+req.Summary, "permission_prompt")
		}
		return prompt(ctx, req)
	}
	return ui
}

// openHooks plans the session's hooks (before the agent's options are
// built); their notice joins the session's.
func (s *Session) openHooks(cfg config.Config, f Flags, ts *toolset) {
	userConfig := f.ConfigPath
	if userConfig == "" {
		userConfig = filepath.Join(s.Home, "config.yaml")
	}
	plan := planHooks(cfg, userConfig, s.Cwd, f.Trust)
	s.addNotice(plan.notice)
	s.untrusted, s.projectRoot, s.userConfig = plan.untrusted, plan.root, userConfig
	trusted := f.Trust || ext.Trusted(plan.root, cfg.TrustedProjects)
	rules, notice := planRules(cfg, plan.root, userConfig, trusted)
	s.addNotice(notice)
	env := ts.env.Commands.Environ
	if env == nil {
		env = tools.FilterEnviron(os.Environ(), cfg.KeyEnvNames(), cfg.Terminal.EnvPassthrough)
	}
	s.hooks = newSessionHooks(plan.hooks, s.Cwd, env, s, ts)
	s.hooks.rules, s.hooks.trusted = rules, trusted
	if err := s.applyRules(); err != nil {
		s.addNotice("rules: " + err.Error())
	}
}

// startHooks connects the hooks to the agent's event stream and runs
// SessionStart.
func (s *Session) startHooks(ctx context.Context) {
	if s.hooks == nil {
		return
	}
	s.hooks.emit = s.Agent.Emit
	source := "startup"
	if s.Resumed {
		source = "resume"
	}
	s.addNotice(s.hooks.sessionStart(ctx, source))
}

func (s *Session) addNotice(n string) {
	if n = strings.TrimSpace(n); n != "" {
		s.Notice = strings.TrimPrefix(s.Notice+"; "+n, "; ")
	}
}

// UntrustedHooks lists the hooks of this session's project that do not
// run because the folder is not trusted (empty when none, or once
// trusted): what the TUI's trust dialog names before the user accepts.
func (s *Session) UntrustedHooks() []ext.HookSummary {
	s.trustMu.Lock()
	defer s.trustMu.Unlock()
	out := make([]ext.HookSummary, 0, len(s.untrusted))
	for _, h := range s.untrusted {
		out = append(out, ext.HookSummary{Hook: h})
	}
	return out
}

// ProjectRoot is the folder whose settings trust covers (the git root
// above the working directory, or the working directory).
func (s *Session) ProjectRoot() string { return s.projectRoot }

// TrustProject is the user accepting the trust dialog: the project's
// folder is recorded in the user's trusted_projects (TrustProject) and
// its hooks and permission rules apply from the next event of this
// session on. It returns the
// folder recorded.
func (s *Session) TrustProject() (string, error) {
	s.trustMu.Lock()
	defer s.trustMu.Unlock()
	root, err := TrustProject(s.userConfig, s.Cwd)
	if err != nil {
		return "", err
	}
	if s.hooks != nil && len(s.untrusted) > 0 {
		s.hooks.add(s.untrusted)
	}
	s.untrusted = nil
	if s.hooks != nil {
		s.hooks.rules.applied = append(s.hooks.rules.applied, s.hooks.rules.untrusted...)
		s.hooks.rules.untrusted, s.hooks.trusted = nil, true
	}
	if err := s.applyRules(); err != nil {
		return root, err
	}
	return root, nil
}
