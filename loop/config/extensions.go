package config

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Extensions configures where custom commands, skills and subagents are
// found (see package talaria/loop/ext).
type Extensions struct {
	// ClaudeDirs reads the project's .claude/ folders too; nil means the
	// default, true. False ignores .claude/ (commands, skills, agents and,
	// once trust is wired, settings.json).
	ClaudeDirs *bool `yaml:"claude_dirs"`
}

// ReadClaudeDirs reports whether .claude/ folders are read (default true).
func (e Extensions) ReadClaudeDirs() bool { return e.ClaudeDirs == nil || *e.ClaudeDirs }

// Hooks is the hooks: key, Claude Code's settings.json shape: each event
// name (PreToolUse, PostToolUse, UserPromptSubmit, Stop, SubagentStop,
// SessionStart, SessionEnd, PreCompact, Notification) to its matcher groups.
type Hooks map[string][]HookGroup

// HookGroup is one matcher with the hooks it runs.
type HookGroup struct {
	// Matcher selects tool names (tool events) or sources/reasons (session
	// events): empty or "*" matches all, names split on | or , match
	// exactly, anything else is an unanchored regular expression.
	Matcher string `yaml:"matcher"`
	// Hooks are the commands run when the matcher matches.
	Hooks []HookCommand `yaml:"hooks"`
}

// HookCommand is one hook handler; only type command is supported.
type HookCommand struct {
	// Type is "command" (the default when empty).
	Type string `yaml:"type"`
	// Command is run with bash -c (sh -c without bash) in the project
	// directory.
	Command string `yaml:"command"`
	// Timeout is in seconds; 0 means 60.
	Timeout float64 `yaml:"timeout"`
}

// HookEvents lists the hook events talaria runs, in Claude Code's spelling.
func HookEvents() []string {
	return []string{"PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SubagentStop",
		"SessionStart", "SessionEnd", "PreCompact", "Notification"}
}

// validateExtensions checks the hooks: key: known events, a command for
// each command hook, non-negative timeouts and matchers that compile.
// Handler types other than command are left to the runner, which skips
// them with a notice (a settings file copied from Claude Code still loads).
func validateExtensions(cfg *Config, bad func(string, string) error) error {
	events := HookEvents()
	for event, groups := range cfg.Hooks {
		key := "hooks." + event
		if !slices.Contains(events, event) {
			return bad(key, fmt.Sprintf("unknown hook event (known: %s)", strings.Join(events, ", ")))
		}
		for i, g := range groups {
			gkey := fmt.Sprintf("%s[%d]", key, i)
			if err := checkMatcher(g.Matcher); err != nil {
				return bad(gkey+".matcher", err.Error())
			}
			for j, h := range g.Hooks {
				hkey := fmt.Sprintf("%s.hooks[%d]", gkey, j)
				if (h.Type == "" || h.Type == "command") && strings.TrimSpace(h.Command) == "" {
					return bad(hkey+".command", "required for a command hook")
				}
				if h.Timeout < 0 {
					return bad(hkey+".timeout", "must be a number of seconds, 0 or more (0 means 60)")
				}
			}
		}
	}
	for i, dir := range cfg.TrustedProjects {
		if !filepath.IsAbs(dir) {
			return bad(fmt.Sprintf("trusted_projects[%d]", i), fmt.Sprintf("must be an absolute path, got %q", dir))
		}
	}
	return nil
}

// checkMatcher reports a matcher that is neither a name list nor a regular
// expression Go can compile (RE2: no look-around or backreferences).
func checkMatcher(m string) error {
	if m == "" || m == "*" || IsNameListMatcher(m) {
		return nil
	}
	if _, err := regexp.Compile(m); err != nil {
		return fmt.Errorf("%q is not a regular expression talaria can use: %v", m, err)
	}
	return nil
}

// IsNameListMatcher reports whether m holds only [A-Za-z0-9_ ,|-]: a list of
// exact names rather than a regular expression (as in Claude Code).
func IsNameListMatcher(m string) bool {
	for _, r := range m {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_ ,|-", r)) {
			return false
		}
	}
	return true
}
