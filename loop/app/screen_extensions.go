package app

import (
	"fmt"
	"slices"
	"strings"

	"talaria/loop/ext"
	"talaria/loop/port"
)

// CustomCommands lists the current session's custom commands and skills
// by name; built once per session's set (it is asked for at each key
// typed after a slash).
func (p *Screen) CustomCommands() []port.CustomCommand {
	set := p.w.Current().Extensions()
	p.extMu.Lock()
	defer p.extMu.Unlock()
	if set != p.extSet || p.extSet == nil {
		p.extSet, p.extListed = set, customCommands(set)
	}
	return p.extListed
}

// ExpandCommand is what the model gets for "/NAME args".
func (p *Screen) ExpandCommand(name, args string) (string, string, bool) {
	e, ok := p.w.Current().ExpandCommand("/" + name + " " + args)
	return e.Text, e.Note, ok
}

// Skills lists the current session's skills, and what changed on disk
// since it began.
func (p *Screen) Skills() ([]port.ExtensionItem, string) {
	s := p.w.Current()
	set := s.Extensions()
	var out []port.ExtensionItem
	for _, n := range set.SkillNames() {
		sk := set.Skills[n]
		out = append(out, port.ExtensionItem{Name: n, Description: sk.Description, Path: sk.Source.Path})
	}
	return out, s.SkillsNote()
}

// Agents lists the subagents delegate_task offers.
func (p *Screen) Agents() []port.ExtensionItem {
	set := p.w.Current().Extensions()
	var out []port.ExtensionItem
	for _, n := range set.AgentNames() {
		a := set.Agents[n]
		out = append(out, port.ExtensionItem{Name: n, Description: a.Description, Path: a.Source.Path})
	}
	return out
}

// Trust is what the current session's untrusted project would add: its
// hooks and its allow and ask rules (nil without any).
func (p *Screen) Trust() *port.TrustRequest { return trustRequest(p.w.Current()) }

// TrustProject trusts the current session's project.
func (p *Screen) TrustProject() (string, error) {
	s := p.w.Current()
	if s == nil {
		return "", fmt.Errorf("no session is open")
	}
	return s.TrustProject()
}

// customCommands lists the commands and skills /NAME runs (a built-in's
// name runs the built-in, so it is not listed), by name.
func customCommands(set *ext.Set) []port.CustomCommand {
	seen := map[string]bool{}
	var out []port.CustomCommand
	for _, n := range append(set.SkillNames(), set.CommandNames()...) {
		if seen[n] {
			continue
		}
		seen[n] = true
		c, ok := set.Lookup(n)
		if !ok {
			continue
		}
		out = append(out, port.CustomCommand{Name: c.Name, ArgumentHint: c.ArgumentHint, Description: c.Description, Path: c.Source.Path, Skill: c.Skill})
	}
	slices.SortFunc(out, func(a, b port.CustomCommand) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// trustRequest is what session s's untrusted project would add (nil
// without any, or without a session).
func trustRequest(s *Session) *port.TrustRequest {
	if s == nil {
		return nil
	}
	req := &port.TrustRequest{Root: s.ProjectRoot()}
	for _, h := range s.UntrustedHooks() {
		req.Hooks = append(req.Hooks, port.TrustHook{Event: h.Event, Matcher: h.Matcher, Command: h.Command, Path: h.Source.Path})
	}
	for _, r := range s.UntrustedRules() {
		req.Rules = append(req.Rules, port.TrustRule{List: r.List, Rule: r.Rule, Path: r.Source.Path})
	}
	if req.Empty() {
		return nil
	}
	return req
}
