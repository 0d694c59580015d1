// Package ext finds and parses the extensions users bring from Claude Code,
// Codex and Gemini CLI — custom commands, skills, subagents — and runs
// hooks. It reads files and runs hook commands; it knows nothing of the
// TUI, the loop or the approver, which consume what it returns.
package ext

import (
	"fmt"
	"sort"
)

// Origin says where an extension file was found.
type Origin string

// Origins.
const (
	// OriginHome is $TALARIA_HOME.
	OriginHome Origin = "home"
	// OriginProject is a folder of the project (the working directory or
	// a parent up to the git root). Trust applies to these.
	OriginProject Origin = "project"
)

// Source is the file an extension came from.
type Source struct {
	// Path is the file's absolute path.
	Path string `json:"path"`
	// Origin is home or project.
	Origin Origin `json:"origin"`
	// Tree is the extension folder it was found in (".claude", ".agents",
	// ".talaria", or "$TALARIA_HOME").
	Tree string `json:"tree"`
}

// Notice is a problem found while loading, shown to the user; it never
// stops start-up.
type Notice struct {
	// File is the file concerned (empty for a general notice).
	File string `json:"file,omitempty"`
	// Line is the 1-based line in File, 0 when unknown.
	Line int `json:"line,omitempty"`
	// Msg says what is wrong and what was done about it.
	Msg string `json:"message"`
}

// String renders the notice as "file:line: msg".
func (n Notice) String() string {
	switch {
	case n.File == "":
		return n.Msg
	case n.Line > 0:
		return fmt.Sprintf("%s:%d: %s", n.File, n.Line, n.Msg)
	}
	return n.File + ": " + n.Msg
}

// Set is every extension found for one session, each by name (a later
// file of the same name has replaced an earlier one).
type Set struct {
	// Commands are the custom slash commands by name ("a:b" for a/b.md).
	Commands map[string]*Command
	// Skills are the skills by name.
	Skills map[string]*Skill
	// Agents are the subagents by name.
	Agents map[string]*Agent
	// Notices are the problems found while loading, in the order found.
	Notices []Notice
	// builtins are the built-in command names no custom one may shadow.
	builtins map[string]bool
	// dirs holds the folders listed during Load open, so that their files
	// are opened relative to them (dircache.go); nil after Load.
	dirs *dirCache
}

// CommandNames returns the command names, sorted.
func (s *Set) CommandNames() []string { return sortedKeys(s.Commands) }

// SkillNames returns the skill names, sorted.
func (s *Set) SkillNames() []string { return sortedKeys(s.Skills) }

// AgentNames returns the agent names, sorted.
func (s *Set) AgentNames() []string { return sortedKeys(s.Agents) }

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Lookup finds what `/name` runs: a skill (its body as the prompt) or a
// custom command, a skill winning over a command of the same name as in
// Claude Code. A built-in command name never resolves here: the caller
// runs its built-in instead.
func (s *Set) Lookup(name string) (*Command, bool) {
	if s == nil || s.builtins[name] {
		return nil, false
	}
	if sk, ok := s.Skills[name]; ok {
		return sk.AsCommand(), true
	}
	c, ok := s.Commands[name]
	return c, ok
}
