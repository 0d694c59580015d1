package ext

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"go.yaml.in/yaml/v3"

	"talaria/loop/config"
	"talaria/tools"
)

// Permission lists of a rule.
const (
	ListAllow = "allow"
	ListAsk   = "ask"
	ListDeny  = "deny"
)

// ProjectRule is one permission rule of a project's own settings.
type ProjectRule struct {
	// List is allow, ask or deny.
	List string `json:"list"`
	// Rule is the rule as written (it parses: see tools.ParseRule).
	Rule string `json:"rule"`
	// Source is the file it came from.
	Source Source `json:"source"`
}

// String renders the rule as "deny Bash(rm:*) (FILE)".
func (r ProjectRule) String() string {
	return fmt.Sprintf("%s %s (%s)", r.List, r.Rule, r.Source.Path)
}

// ProjectPermissions reads the permission rules a project's settings
// would add: permissions: of root/.talaria/config.yaml and, with
// claudeDirs, "permissions" of root/.claude/settings.json and
// root/.claude/settings.local.json (Claude Code's shared and personal
// project settings). A rule that does not parse is left out with a
// notice naming it (a deny rule left out is one that does not apply, so
// it is always said); the others of its file are kept.
func ProjectPermissions(root string, claudeDirs bool) ([]ProjectRule, []Notice) {
	var out []ProjectRule
	var notes []Notice
	read := func(path, tree string, decode func([]byte, *config.Permissions) error) {
		data, err := readFile(path)
		if err != nil {
			if _, statErr := os.Stat(path); statErr == nil {
				notes = append(notes, Notice{File: path, Msg: "permissions not read: " + err.Error()})
			}
			return
		}
		var p config.Permissions
		if err := decode(data, &p); err != nil {
			notes = append(notes, Notice{File: path, Msg: "permissions not read: " + oneLine(err.Error())})
			return
		}
		src := Source{Path: path, Origin: OriginProject, Tree: tree}
		for _, l := range []struct {
			name string
			list []string
		}{{ListDeny, p.Deny}, {ListAsk, p.Ask}, {ListAllow, p.Allow}} {
			for i, r := range l.list {
				if _, err := tools.ParseRule(r); err != nil {
					notes = append(notes, Notice{File: path, Msg: fmt.Sprintf("permissions.%s[%d] %q left out: %v", l.name, i, r, err)})
					continue
				}
				out = append(out, ProjectRule{List: l.name, Rule: r, Source: src})
			}
		}
	}
	read(config.ProjectConfigFile(root), ".talaria", func(b []byte, p *config.Permissions) error {
		var doc struct {
			Permissions config.Permissions `yaml:"permissions"`
		}
		err := yaml.Unmarshal(b, &doc)
		*p = doc.Permissions
		return err
	})
	if claudeDirs {
		for _, name := range []string{"settings.json", "settings.local.json"} {
			read(filepath.Join(root, ".claude", name), ".claude", func(b []byte, p *config.Permissions) error {
				var doc struct {
					Permissions config.Permissions `json:"permissions"`
				}
				err := json.Unmarshal(b, &doc)
				*p = doc.Permissions
				return err
			})
		}
	}
	return out, notes
}

// Permissions gathers rules into the config's three lists (in the order
// given: deny beats ask beats allow whatever the order).
func Permissions(rules []ProjectRule) config.Permissions {
	var p config.Permissions
	for _, r := range rules {
		switch r.List {
		case ListAllow:
			p.Allow = append(p.Allow, r.Rule)
		case ListAsk:
			p.Ask = append(p.Ask, r.Rule)
		case ListDeny:
			p.Deny = append(p.Deny, r.Rule)
		}
	}
	return p
}
