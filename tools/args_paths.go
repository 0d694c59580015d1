package tools

import (
	"fmt"
	"path/filepath"
	"strings"
)

// writePaths returns the path write_file writes, as the model gave it, or
// the error the tool gives for a call without one.
func (a writeFileArgs) writePaths() ([]string, error) {
	if strings.TrimSpace(a.Path) == "" {
		return nil, fmt.Errorf("argument \"path\" is required")
	}
	return []string{a.Path}, nil
}

// writePaths returns every path a patch call writes, deletes or moves to,
// as the model gave them: the path of a replace, or the paths of every
// section of a V4A patch (Add, Update, Delete and each Move to target), read
// by parseV4A, the parser the tool applies. A call the tool would refuse
// before touching anything returns the tool's error.
func (a patchArgs) writePaths() ([]string, error) {
	if a.isV4A() {
		if strings.TrimSpace(a.Patch) == "" {
			return nil, fmt.Errorf("argument \"patch\" is required in mode \"patch\" (a V4A patch starting with \"*** Begin Patch\")")
		}
		files, err := parseV4A(a.Patch)
		if err != nil {
			return nil, fmt.Errorf("invalid V4A patch: %v. No file was changed", err)
		}
		var out []string
		for _, f := range files {
			out = append(out, f.path)
			if f.moveTo != "" {
				out = append(out, f.moveTo)
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("invalid V4A patch: it names no file. No file was changed")
		}
		return out, nil
	}
	switch strings.TrimSpace(a.Mode) {
	case "", "replace":
	default:
		return nil, fmt.Errorf("unknown mode %q; use \"replace\" or \"patch\"", a.Mode)
	}
	if strings.TrimSpace(a.Path) == "" {
		return nil, fmt.Errorf("argument \"path\" is required in replace mode")
	}
	return []string{a.Path}, nil
}

// action returns the process tool's action as the tool reads it.
func (a processArgs) action() string {
	return strings.ToLower(strings.TrimSpace(a.Action))
}

// protectedWhy says why a write of the clean absolute path abs is
// protected, or "": it lies under a directory named .git (any depth, so
// any repository in the tree, and the .git file of a worktree), is a
// project's settings file (isProjectSettings) or lies under a.Home
// ($TALARIA_HOME), judged on the path as given and once the
// symlinks of its longest existing prefix are resolved.
func (a *Approver) protectedWhy(abs string) string {
	return protectedIn(homeForms(a.Home), abs, resolveExistingPrefix(abs))
}

// homeForms returns $TALARIA_HOME home as given (made absolute) and with
// the symlinks of its longest existing prefix resolved; nil for "".
func homeForms(home string) []string {
	if home == "" {
		return nil
	}
	h, err := ResolvePath("", home)
	if err != nil {
		return nil
	}
	return []string{h, resolveExistingPrefix(h)}
}

// protectedIn says why a write of any of the clean absolute paths forms
// is protected, or "": one of them has a .git component, or lies under one
// of homes (the forms of $TALARIA_HOME). The approver asks it at approval
// time and writeGuard at write time, so that both judge by one rule.
func protectedIn(homes []string, forms ...string) string {
	for _, p := range forms {
		if hasGitComponent(p) {
			return ".git"
		}
		if isProjectSettings(p) {
			return "a project's settings (its permission rules and hooks)"
		}
	}
	for _, h := range homes {
		for _, p := range forms {
			if isWithin(h, p) {
				return "$TALARIA_HOME"
			}
		}
	}
	return ""
}

// isProjectSettings reports whether p is a project's settings file, which
// holds permission rules and hooks: .talaria/config.yaml (or .yml) or
// .claude/settings.json / settings.local.json, in any case. A model that
// could edit it unasked could allow itself anything in the next session.
func isProjectSettings(p string) bool {
	dir, file := filepath.Split(filepath.Clean(p))
	parent := strings.ToLower(filepath.Base(dir))
	file = strings.ToLower(file)
	switch parent {
	case ".talaria":
		return file == "config.yaml" || file == "config.yml"
	case ".claude":
		return file == "settings.json" || file == "settings.local.json"
	}
	return false
}

// hasGitComponent reports whether a component of the path p is ".git"
// (in any case, for case-insensitive file systems).
func hasGitComponent(p string) bool {
	for _, c := range strings.Split(filepath.ToSlash(p), "/") {
		if strings.EqualFold(c, ".git") {
			return true
		}
	}
	return false
}
