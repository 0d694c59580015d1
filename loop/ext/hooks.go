package ext

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"talaria/loop/config"
)

// Hook events (Claude Code's names).
const (
	PreToolUse       = "PreToolUse"
	PostToolUse      = "PostToolUse"
	UserPromptSubmit = "UserPromptSubmit"
	Stop             = "Stop"
	SubagentStop     = "SubagentStop"
	SessionStart     = "SessionStart"
	SessionEnd       = "SessionEnd"
	PreCompact       = "PreCompact"
	Notification     = "Notification"
)

// DefaultHookTimeout is a hook's timeout when its config gives none.
const DefaultHookTimeout = 60 * time.Second

// Hook is one configured hook command, compiled.
type Hook struct {
	// Event is the event it runs on.
	Event string `json:"event"`
	// Matcher is the matcher as written.
	Matcher string `json:"matcher,omitempty"`
	// Command is run with bash -c (or sh -c).
	Command string `json:"command"`
	// Timeout bounds one run.
	Timeout time.Duration `json:"timeout"`
	// Source is the config file it came from (Origin project: applies
	// only when the project is trusted).
	Source Source `json:"source"`

	names []string       // an exact-name matcher's names, aliases resolved
	re    *regexp.Regexp // a regex matcher
	all   bool
}

// CompileHooks turns the hooks: key of one config file into hooks, in a
// stable order (event, then as written). A handler type talaria does not
// run (http, prompt, agent, mcp_tool) is skipped with a notice; so is a
// matcher that does not compile (config validation normally caught it).
func CompileHooks(h config.Hooks, src Source) ([]Hook, []Notice) {
	var out []Hook
	var notes []Notice
	for _, event := range config.HookEvents() {
		for gi, g := range h[event] {
			for hi, c := range g.Hooks {
				where := fmt.Sprintf("hooks.%s[%d].hooks[%d]", event, gi, hi)
				if c.Type != "" && c.Type != "command" {
					notes = append(notes, Notice{File: src.Path, Msg: fmt.Sprintf("%s: type %q is not supported (only command); skipped", where, c.Type)})
					continue
				}
				hk := Hook{Event: event, Matcher: g.Matcher, Command: c.Command, Timeout: DefaultHookTimeout, Source: src}
				if c.Timeout > 0 {
					hk.Timeout = time.Duration(c.Timeout * float64(time.Second))
				}
				if err := hk.compile(); err != nil {
					notes = append(notes, Notice{File: src.Path, Msg: fmt.Sprintf("%s: %v; skipped", where, err)})
					continue
				}
				out = append(out, hk)
			}
		}
	}
	return out, notes
}

func (h *Hook) compile() error {
	m := strings.TrimSpace(h.Matcher)
	switch {
	case m == "" || m == "*":
		h.all = true
	case config.IsNameListMatcher(m):
		for _, n := range strings.FieldsFunc(m, func(r rune) bool { return r == '|' || r == ',' }) {
			if n = strings.TrimSpace(n); n != "" {
				h.names = append(h.names, ToolName(n))
			}
		}
	default:
		re, err := regexp.Compile(m)
		if err != nil {
			return fmt.Errorf("matcher %q: %v", m, err)
		}
		h.re = re
	}
	return nil
}

// Matches reports whether the hook runs for target (the tool name for
// tool events, source/reason/trigger/notification type for the others).
// A name list matches talaria's name or Claude Code's alias of it; a
// regex is tried on both too, unanchored (Claude Code's "Edit.*" on
// "patch" works through the alias "Edit").
func (h *Hook) Matches(target string) bool {
	switch {
	case h.all:
		return true
	case h.names != nil:
		canon := ToolName(target)
		for _, n := range h.names {
			if toolMatches(n, canon) || n == target {
				return true
			}
		}
		return false
	case h.re != nil:
		if h.re.MatchString(target) {
			return true
		}
		for _, alias := range ClaudeToolNames(target) {
			if h.re.MatchString(alias) {
				return true
			}
		}
	}
	return false
}

// Input is the JSON a hook reads on stdin. The runner sets
// hook_event_name; the caller fills the rest as the event has them.
type Input struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	PermissionMode string `json:"permission_mode,omitempty"`
	// Tool events.
	ToolName     string          `json:"tool_name,omitempty"`
	ToolInput    json.RawMessage `json:"tool_input,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	ToolResponse json.RawMessage `json:"tool_response,omitempty"`
	// UserPromptSubmit.
	Prompt string `json:"prompt,omitempty"`
	// Stop and SubagentStop (always sent for them).
	StopHookActive *bool `json:"stop_hook_active,omitempty"`
	// LastAssistantMessage is the answer the turn would end with (Stop,
	// SubagentStop).
	LastAssistantMessage string `json:"last_assistant_message,omitempty"`
	// SessionStart: startup | resume | clear | compact.
	Source string `json:"source,omitempty"`
	// SessionEnd: clear | logout | prompt_input_exit | other.
	Reason string `json:"reason,omitempty"`
	// PreCompact: manual | auto.
	Trigger string `json:"trigger,omitempty"`
	// Notification.
	Message          string `json:"message,omitempty"`
	NotificationType string `json:"notification_type,omitempty"`
}

// matchTarget is what an event's matcher is tried on.
func matchTarget(event string, in *Input) (string, bool) {
	switch event {
	case PreToolUse, PostToolUse:
		return in.ToolName, true
	case SessionStart:
		return in.Source, true
	case SessionEnd:
		return in.Reason, true
	case PreCompact:
		return in.Trigger, true
	case Notification:
		return in.NotificationType, true
	}
	return "", false // UserPromptSubmit, Stop, SubagentStop: every hook runs
}

// blockingEvents are those where exit 2 / decision block means something
// for the caller.
var blockingEvents = []string{PreToolUse, PostToolUse, UserPromptSubmit, Stop, SubagentStop, PreCompact}

func blocks(event string) bool { return slices.Contains(blockingEvents, event) }
