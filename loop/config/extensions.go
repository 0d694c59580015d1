package config

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
