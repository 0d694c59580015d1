package ext

import (
	"encoding/json"
	"strings"
)

// maxDecisionText caps each reason, message and context a hook returns
// (Claude Code's 10,000 characters).
const maxDecisionText = 10000

// Permission decisions of PreToolUse hooks, weakest first.
const (
	PermissionNone  = ""
	PermissionAllow = "allow"
	PermissionAsk   = "ask"
	PermissionDeny  = "deny"
)

// Decision is what one event's hooks decided together.
type Decision struct {
	// Block is set when a hook exited 2 or returned decision "block" (or,
	// for PreToolUse, permissionDecision deny) on an event where that
	// means something: PreToolUse does not run the tool, PostToolUse and
	// Stop/SubagentStop give Reason to the model (Stop: the turn goes on),
	// UserPromptSubmit drops the prompt, PreCompact skips compaction.
	Block bool `json:"block,omitempty"`
	// Reason is the blocking hooks' reasons (stderr for exit 2), joined.
	Reason string `json:"reason,omitempty"`
	// Permission is PreToolUse's combined permissionDecision: deny beats
	// ask beats allow. An allow only skips the dialog; it never lifts a
	// protected path, the sandbox or a deny rule (the caller's duty).
	Permission string `json:"permission,omitempty"`
	// PermissionReason explains Permission.
	PermissionReason string `json:"permission_reason,omitempty"`
	// Context is text for the model: additionalContext, and plain stdout
	// of UserPromptSubmit and SessionStart hooks.
	Context []string `json:"context,omitempty"`
	// Stop is set when a hook returned "continue": false; StopReason says
	// why (for the user).
	Stop       bool   `json:"stop,omitempty"`
	StopReason string `json:"stop_reason,omitempty"`
	// Messages are for the user: systemMessage, stderr of a failed hook,
	// stderr of exit 2 on an event it cannot block.
	Messages []string `json:"messages,omitempty"`
	// Failed counts hooks that timed out, crashed or exited non-zero (not
	// 2): non-blocking errors, to show.
	Failed int `json:"failed,omitempty"`
}

// parseOutput reads stdout as the JSON object of Output, or nil.
func parseOutput(stdout string) *Output {
	t := strings.TrimSpace(stdout)
	if !strings.HasPrefix(t, "{") {
		return nil
	}
	var o Output
	if err := json.Unmarshal([]byte(t), &o); err != nil {
		return nil
	}
	return &o
}

// Combine merges the outcomes of one event's hooks as the contract says:
// exit 2 blocks with stderr as the reason; another non-zero exit, a
// timeout or a crash is a non-blocking error; JSON on stdout decides
// (honoured on exit 0 and on non-blocking errors, not on exit 2); deny
// beats ask beats allow across hooks.
func Combine(event string, outs []Outcome) Decision {
	var d Decision
	var reasons, permReasons []string
	rank := map[string]int{PermissionNone: 0, PermissionAllow: 1, PermissionAsk: 2, PermissionDeny: 3}
	setPerm := func(p, why string) {
		if rank[p] > rank[d.Permission] {
			d.Permission, permReasons = p, nil
		}
		if p == d.Permission && why != "" {
			permReasons = append(permReasons, capText(why))
		}
	}
	block := func(why string) {
		if !blocks(event) {
			if why != "" {
				d.Messages = append(d.Messages, capText(why))
			}
			return
		}
		d.Block = true
		if why = strings.TrimSpace(why); why != "" {
			reasons = append(reasons, capText(why))
		}
	}
	for i := range outs {
		o := &outs[i]
		if o.Failed() {
			d.Failed++
			if msg := strings.TrimSpace(o.Stderr); msg != "" {
				d.Messages = append(d.Messages, capText(msg))
			}
		}
		if o.ExitCode == 2 && !o.TimedOut && !o.Canceled {
			why := o.Stderr
			if strings.TrimSpace(why) == "" {
				why = "blocked by hook " + o.Hook.Command
			}
			block(why)
			if event == PreToolUse {
				setPerm(PermissionDeny, why)
			}
			continue
		}
		if o.TimedOut || o.Canceled || o.StartErr != "" {
			continue
		}
		out := o.Output
		if out == nil {
			if o.ExitCode == 0 && (event == UserPromptSubmit || event == SessionStart) {
				if t := strings.TrimSpace(o.Stdout); t != "" {
					d.Context = append(d.Context, capText(t))
				}
			}
			continue
		}
		if out.Continue != nil && !*out.Continue {
			d.Stop = true
			if out.StopReason != "" {
				d.StopReason = capText(out.StopReason)
			}
		}
		if out.SystemMessage != "" {
			d.Messages = append(d.Messages, capText(out.SystemMessage))
		}
		switch strings.ToLower(out.Decision) {
		case "block":
			block(out.Reason)
			if event == PreToolUse {
				setPerm(PermissionDeny, out.Reason)
			}
		case "approve":
			if event == PreToolUse {
				setPerm(PermissionAllow, out.Reason)
			}
		}
		if s := out.HookSpecificOutput; s != nil {
			if event == PreToolUse {
				switch p := strings.ToLower(s.PermissionDecision); p {
				case PermissionAllow, PermissionAsk:
					setPerm(p, s.PermissionDecisionReason)
				case PermissionDeny:
					setPerm(p, s.PermissionDecisionReason)
					block(s.PermissionDecisionReason)
				}
			}
			if s.AdditionalContext != "" {
				d.Context = append(d.Context, capText(s.AdditionalContext))
			}
		}
	}
	d.Reason = strings.Join(reasons, "\n")
	d.PermissionReason = strings.Join(permReasons, "\n")
	return d
}

func capText(s string) string {
	s = strings.TrimSpace(s)
	if len(s) <= maxDecisionText {
		return s
	}
	cut := maxDecisionText
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// Label names the outcome for hook.completed's decision field: block,
// deny, ask, allow, timeout, error, canceled, or "" (went on).
func (o *Outcome) Label(event string) string {
	switch {
	case o.Canceled:
		return "canceled"
	case o.TimedOut:
		return "timeout"
	case o.StartErr != "":
		return "error"
	case o.ExitCode == 2:
		if blocks(event) {
			return "block"
		}
		return "error"
	case o.ExitCode != 0:
		return "error"
	}
	if out := o.Output; out != nil {
		if s := out.HookSpecificOutput; s != nil && event == PreToolUse && s.PermissionDecision != "" {
			return strings.ToLower(s.PermissionDecision)
		}
		if strings.EqualFold(out.Decision, "block") && blocks(event) {
			return "block"
		}
		if out.Continue != nil && !*out.Continue {
			return "stop"
		}
	}
	return ""
}
