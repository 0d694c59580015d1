package app

import (
	"fmt"
	"path/filepath"
	"strings"

	"talaria/loop/config"
	"talaria/loop/ext"
)

// projectRules are a project's permission rules as the session applies
// them: only once the folder is trusted (CONTRACT.md: an untrusted
// project's rules are listed and ignored — deny rules too, so that what a
// project does is the same whatever it declares until the user says so).
type projectRules struct {
	user      config.Permissions // the user's config and flags
	applied   []ext.ProjectRule  // the project's rules in force
	untrusted []ext.ProjectRule  // listed, ignored until trusted
}

// planRules reads the project's rules (ext.ProjectPermissions) and splits
// them by trust. notice names what was ignored or left out ("" when
// nothing).
func planRules(cfg config.Config, root, userConfig string, trusted bool) (projectRules, string) {
	p := projectRules{user: cfg.Permissions}
	rules, ns := ext.ProjectPermissions(root, cfg.Extensions.ReadClaudeDirs())
	var notes []string
	for _, n := range ns {
		notes = append(notes, "rules: "+n.String())
	}
	for _, r := range rules {
		switch {
		case userConfig != "" && sameFile(r.Source.Path, userConfig):
			// The user's own config seen as a project file: its rules
			// are the user's, already in force.
		case trusted:
			p.applied = append(p.applied, r)
		default:
			p.untrusted = append(p.untrusted, r)
		}
	}
	if len(p.untrusted) > 0 {
		notes = append(notes, fmt.Sprintf("%d rule(s) of the untrusted project %s ignored; trust it with --trust or trusted_projects in the user's config.yaml",
			len(p.untrusted), root))
	}
	return p, strings.Join(notes, "; ")
}

// permissions is the user's rules with the project's in force after them
// (deny beats ask beats allow across every source).
func (p projectRules) permissions() config.Permissions {
	return p.user.Merge(ext.Permissions(p.applied))
}

// applyRules puts the session's rules in force: the user's and the
// project's applied ones.
func (s *Session) applyRules() error {
	if s.tools == nil || s.tools.approver == nil || s.hooks == nil {
		return nil
	}
	r, err := s.hooks.rules.permissions().Rules()
	if err != nil {
		return err // every rule was parsed when read; not reached
	}
	s.tools.approver.SetRules(r)
	return nil
}

// UntrustedRules lists the project's rules ignored because
// the folder is not trusted (empty once trusted): what the trust dialog
// names with the hooks.
func (s *Session) UntrustedRules() []ext.ProjectRule {
	s.trustMu.Lock()
	defer s.trustMu.Unlock()
	if s.hooks == nil {
		return nil
	}
	return append([]ext.ProjectRule(nil), s.hooks.rules.untrusted...)
}

// sameFile reports whether a and b are one existing file.
func sameFile(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}
