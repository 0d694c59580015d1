package app

import (
	"context"
	"fmt"
	"strings"

	"talaria/loop/ext"
)

// maxExtNotices is how many extension notices a session's start-up notice
// spells out; the rest are counted (talaria extensions lists them all).
const maxExtNotices = 5

// loadExtensions reads the session's custom commands, skills and agents,
// once, at Open: a file added later is picked up by the next session (the
// skills are part of the system prompt, which is built once). What was
// skipped is added to the session's notice.
func (s *Session) loadExtensions(f Flags) {
	s.ext = ext.Load(s.extOptions(f.Builtins))
	s.builtins = f.Builtins
	if n := extNotice(s.ext.Notices); n != "" {
		s.Notice = strings.TrimPrefix(s.Notice+"; "+n, "; ")
	}
}

// extOptions are the loader's options for this session's directories.
func (s *Session) extOptions(builtins []string) ext.Options {
	return ext.Options{Home: s.Home, Cwd: s.Cwd, ClaudeDirs: s.Config.Extensions.ReadClaudeDirs(), Builtins: builtins}
}

// extNotice renders the loader's notices as one line.
func extNotice(ns []ext.Notice) string {
	if len(ns) == 0 {
		return ""
	}
	var parts []string
	for i, n := range ns {
		if i == maxExtNotices {
			parts = append(parts, fmt.Sprintf("%d more (talaria extensions lists them)", len(ns)-i))
			break
		}
		parts = append(parts, n.String())
	}
	return "extensions: " + strings.Join(parts, "; ")
}

// Extensions returns the custom commands, skills and agents loaded when
// the session opened (never nil).
func (s *Session) Extensions() *ext.Set {
	if s == nil || s.ext == nil {
		return &ext.Set{}
	}
	return s.ext
}

// Expansion is a prompt that ran a custom command or skill.
type Expansion struct {
	// Command is the command or skill that ran.
	Command *ext.Command
	// Text is what the model gets.
	Text string
	// Note, when set, is for the user (e.g. a model: the command asks for
	// that this turn does not switch to).
	Note string
}

// ExpandCommand expands "/NAME args" when NAME is one of the session's
// custom commands or skills (a built-in is never shadowed: the loader
// drops a command of that name). A body's !`cmd` runs first (see
// bangRunner): it may wait for an approval. ok is false for any other text, which is
// then sent as it is.
func (s *Session) ExpandCommand(input string) (Expansion, bool) {
	t := strings.TrimSpace(input)
	rest, ok := strings.CutPrefix(t, "/")
	if !ok || s == nil || s.ext == nil {
		return Expansion{}, false
	}
	name, args, _ := strings.Cut(rest, " ")
	if i := strings.IndexAny(name, "\n\t"); i >= 0 {
		name, args = name[:i], rest[i:]
	}
	c, ok := s.ext.Lookup(name)
	if !ok {
		return Expansion{}, false
	}
	o := ext.ExpandOptions{Root: ext.ProjectRoot(s.Cwd), Cwd: s.Cwd}
	ctx, cancel := context.WithTimeout(context.Background(), bangTotal)
	text := c.ExpandWith(args, o, s.bangRunner(ctx, c))
	cancel()
	e := Expansion{Command: c, Text: strings.TrimSpace(text)}
	if c.Model != "" && !strings.EqualFold(c.Model, "inherit") && c.Model != s.Backend.Model {
		e.Note = fmt.Sprintf("/%s asks for model %s; this turn runs on the session's model %s (switch with /model)", c.Name, c.Model, s.Backend.Model)
	}
	return e, true
}

// ExpandPrompt is for a headless run (-p): ExpandCommand's text, or input
// itself when it names no custom command or skill. A command whose front
// matter names a model runs this run's turn on it, on the same provider
// (an id sent as is); the session keeps its own model for later runs.
func (s *Session) ExpandPrompt(input string) (text, note string) {
	e, ok := s.ExpandCommand(input)
	if !ok {
		return input, ""
	}
	if e.Note == "" {
		return e.Text, ""
	}
	if err := s.runOnModel(e.Command.Model); err != nil {
		return e.Text, e.Note + " (" + err.Error() + ")"
	}
	return e.Text, fmt.Sprintf("/%s runs on model %s (its model: front matter)", e.Command.Name, e.Command.Model)
}

// runOnModel moves the agent to model on the session's provider, for the
// turns of this process: neither the session record nor its stored system
// prompt change.
func (s *Session) runOnModel(model string) error {
	if s.Agent == nil || s.parts == nil {
		return fmt.Errorf("no agent to switch")
	}
	return s.parts.runOnModel(s.Agent, model)
}

// SkillsNote lists skills on disk now that this session's system prompt
// does not hold (added since it began, or since the resumed session
// began): the next session picks them up. "" when there are none.
func (s *Session) SkillsNote() string {
	if s == nil || s.Record == nil || s.Record.SystemPrompt == nil {
		return ""
	}
	now := ext.Load(s.extOptions(s.builtins))
	prompt := *s.Record.SystemPrompt
	if p := s.tools.turnPromptOrEmpty(); p != "" {
		prompt = p
	}
	var added []string
	for _, name := range now.SkillNames() {
		if !strings.Contains(prompt, skillLine(now.Skills[name])) {
			added = append(added, name)
		}
	}
	if len(added) == 0 {
		return ""
	}
	return fmt.Sprintf("not in this session's system prompt yet (added after it began): %s · /new starts a session that has them", strings.Join(added, ", "))
}

// skillLine is how a skill's entry in the system prompt starts.
func skillLine(sk *ext.Skill) string { return "- " + sk.Name + ": " }

// turnPromptOrEmpty is the completed prompt of a session whose tools are
// wired, else "".
func (ts *toolset) turnPromptOrEmpty() string {
	if ts == nil {
		return ""
	}
	return ts.turnPrompt()
}
