package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// layerRule is one row of DESIGN.md's package table: the packages under
// Under (itself and below) must not depend, even through another package,
// on anything under the Forbidden import paths.
type layerRule struct {
	Under     string
	Forbidden []string
}

// layerRules returns DESIGN.md's "must not import" column. A rule holds for the
// package's whole dependency graph (not its tests), so a package cannot
// reach a forbidden one through a neighbour.
func layerRules() []layerRule {
	return []layerRule{
		{"talaria/loop", []string{"talaria/ui", "charm.land/bubbletea", "charm.land/lipgloss", "charm.land/glamour"}},
		{"talaria/loop/port", []string{"talaria/loop/app", "talaria/tools", "talaria/persist"}},
		{"talaria/providers", []string{"talaria/loop", "talaria/ui", "talaria/tools"}},
		{"talaria/tools", []string{"talaria/loop", "talaria/ui"}},
		{"talaria/persist", []string{"talaria/loop", "talaria/ui"}},
		{"talaria/ui", []string{"github.com/sashabaranov/go-openai", "github.com/aws/", "talaria/loop/app",
			"talaria/providers/anthropic", "talaria/providers/bedrock", "talaria/providers/gemini",
			"talaria/providers/openaichat", "talaria/providers/responses"}},
		{"talaria/themes", []string{"talaria/loop", "talaria/ui", "talaria/providers", "talaria/tools", "talaria/persist"}},
	}
}

// TestPackagesKeepDesignLayers checks DESIGN.md's import rules with `go
// list -deps` over every package of the module.
func TestPackagesKeepDesignLayers(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	pkgs := goList(t, goTool, "./...")
	checked := 0
	for _, pkg := range pkgs {
		if pkg == "talaria/ui/e2e" { // an end-to-end harness: it wires the real app to the screen
			continue
		}
		for _, r := range layerRules() {
			if !under(pkg, r.Under) {
				continue
			}
			checked++
			for _, dep := range goList(t, goTool, "-deps", pkg) {
				for _, f := range r.Forbidden {
					if under(dep, f) || (strings.HasSuffix(f, "/") && strings.HasPrefix(dep, f)) {
						t.Errorf("%s depends on %s (DESIGN.md: %s must not import %s)", pkg, dep, r.Under, f)
					}
				}
			}
		}
	}
	if checked < 10 {
		t.Fatalf("only %d packages matched a rule: the rules no longer name the module's packages", checked)
	}
}

// under reports whether pkg is path or below it.
func under(pkg, path string) bool {
	return pkg == path || strings.HasPrefix(pkg, strings.TrimSuffix(path, "/")+"/")
}

// goList runs `go list` with args and returns the import paths it prints.
func goList(t *testing.T, goTool string, args ...string) []string {
	t.Helper()
	cmd := exec.Command(goTool, append([]string{"list", "-f", "{{.ImportPath}}"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("go list %v: %v: %s (needs the go tool)", args, err, stderr.String())
	}
	return strings.Fields(string(out))
}
