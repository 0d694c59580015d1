package ext

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"go.yaml.in/yaml/v3"

	"talaria/loop/config"
)

// ProjectHooks reads the hooks a project's own settings would add: the
// hooks: key of root/.talaria/config.yaml and, with claudeDirs, the
// "hooks" of root/.claude/settings.json. They carry Origin project: the
// caller runs them only when the folder is trusted (Trusted). Files that
// do not parse become notices.
func ProjectHooks(root string, claudeDirs bool) ([]Hook, []Notice) {
	var hooks []Hook
	var notes []Notice
	add := func(path string, h config.Hooks, tree string) {
		hs, ns := CompileHooks(h, Source{Path: path, Origin: OriginProject, Tree: tree})
		hooks, notes = append(hooks, hs...), append(notes, ns...)
	}
	yml := filepath.Join(root, ".talaria", "config.yaml")
	if data, err := readFile(yml); err == nil {
		var doc struct {
			Hooks config.Hooks `yaml:"hooks"`
		}
		if err := yaml.Unmarshal(data, &doc); err != nil {
			notes = append(notes, Notice{File: yml, Msg: "hooks not read: " + oneLine(err.Error())})
		} else {
			add(yml, doc.Hooks, ".talaria")
		}
	} else if _, statErr := os.Stat(yml); statErr == nil {
		notes = append(notes, Notice{File: yml, Msg: "hooks not read: " + err.Error()})
	}
	if claudeDirs {
		js := filepath.Join(root, ".claude", "settings.json")
		data, err := readFile(js)
		if _, statErr := os.Stat(js); err != nil && statErr == nil {
			notes = append(notes, Notice{File: js, Msg: "hooks not read: " + err.Error()})
		}
		if err == nil {
			var doc struct {
				Hooks config.Hooks `json:"hooks"`
			}
			if err := json.Unmarshal(data, &doc); err != nil {
				notes = append(notes, Notice{File: js, Msg: "hooks not read: " + err.Error()})
			} else {
				add(js, doc.Hooks, ".claude")
			}
		}
	}
	return hooks, notes
}

// Trusted reports whether root is one of the trusted project folders
// (compared after resolving symlinks).
func Trusted(root string, trusted []string) bool {
	r := realPath(root)
	for _, t := range trusted {
		if realPath(t) == r {
			return true
		}
	}
	return false
}

// HookSummary is one hook as `talaria extensions` lists it.
type HookSummary struct {
	Hook
	// Trusted is false for a project's hook when the project is not
	// trusted: it is listed and never run.
	Trusted bool `json:"trusted"`
}

// String renders the hook on one line.
func (h HookSummary) String() string {
	m := h.Matcher
	if m == "" {
		m = "*"
	}
	s := fmt.Sprintf("%s %s: %s (timeout %s) from %s", h.Event, m, h.Command, h.Timeout, h.Source.Path)
	if !h.Trusted {
		s += " [untrusted project: not run]"
	}
	return s
}
