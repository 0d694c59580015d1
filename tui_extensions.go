package main

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"talaria/loop/app"
	"talaria/loop/ext"
	"talaria/ui"
)

// tuiExtensions gives the screen the current session's custom commands,
// skills and agents: each call asks the switcher for the session now
// current, so /new and /resume bring their own.
func tuiExtensions(w *app.Switcher) ui.Extensions {
	// The list is asked for at each key typed after a slash: it is built
	// once per session's set.
	var mu sync.Mutex
	var cachedSet *ext.Set
	var cached []ui.CustomCommand
	return ui.Extensions{
		Commands: func() []ui.CustomCommand {
			set := w.Current().Extensions()
			mu.Lock()
			defer mu.Unlock()
			if set != cachedSet || cachedSet == nil {
				cachedSet, cached = set, customCommands(set)
			}
			return cached
		},
		Expand: func(name, args string) (string, string, bool) {
			e, ok := w.Current().ExpandCommand("/" + name + " " + args)
			return e.Text, e.Note, ok
		},
		Skills: func() ([]ui.ExtensionItem, string) {
			s := w.Current()
			set := s.Extensions()
			var out []ui.ExtensionItem
			for _, n := range set.SkillNames() {
				sk := set.Skills[n]
				out = append(out, ui.ExtensionItem{Name: n, Description: sk.Description, Path: sk.Source.Path})
			}
			return out, s.SkillsNote()
		},
		Trust: func() *ui.TrustRequest { return trustRequest(w.Current()) },
		TrustProject: func() (string, error) {
			s := w.Current()
			if s == nil {
				return "", fmt.Errorf("no session is open")
			}
			return s.TrustProject()
		},
		Agents: func() []ui.ExtensionItem {
			set := w.Current().Extensions()
			var out []ui.ExtensionItem
			for _, n := range set.AgentNames() {
				a := set.Agents[n]
				out = append(out, ui.ExtensionItem{Name: n, Description: a.Description, Path: a.Source.Path})
			}
			return out
		},
	}
}

// customCommands lists the commands and skills /NAME runs (a built-in's
// name runs the built-in, so it is not listed), by name.
func customCommands(set *ext.Set) []ui.CustomCommand {
	seen := map[string]bool{}
	var out []ui.CustomCommand
	for _, n := range append(set.SkillNames(), set.CommandNames()...) {
		if seen[n] {
			continue
		}
		seen[n] = true
		c, ok := set.Lookup(n)
		if !ok {
			continue
		}
		out = append(out, ui.CustomCommand{Name: c.Name, ArgumentHint: c.ArgumentHint, Description: c.Description, Path: c.Source.Path, Skill: c.Skill})
	}
	slices.SortFunc(out, func(a, b ui.CustomCommand) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// trustRequest is what the session's untrusted project would add: its
// hooks and its allow and ask rules (nil without any).
func trustRequest(s *app.Session) *ui.TrustRequest {
	if s == nil {
		return nil
	}
	req := &ui.TrustRequest{Root: s.ProjectRoot()}
	for _, h := range s.UntrustedHooks() {
		req.Hooks = append(req.Hooks, ui.TrustHook{Event: h.Event, Matcher: h.Matcher, Command: h.Command, Path: h.Source.Path})
	}
	for _, r := range s.UntrustedRules() {
		req.Rules = append(req.Rules, ui.TrustRule{List: r.List, Rule: r.Rule, Path: r.Source.Path})
	}
	if len(req.Hooks)+len(req.Rules) == 0 {
		return nil
	}
	return req
}
