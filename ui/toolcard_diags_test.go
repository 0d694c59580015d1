package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"talaria/loop"
	"talaria/tools/lsp"
)

// TestEditCardShowsTheDiagnosticsCountAndList: an edit whose result came
// with language-server diagnostics shows their count (errors named) and
// the first of them under its diff, old ones marked, the rest counted.
func TestEditCardShowsTheDiagnosticsCountAndList(t *testing.T) {
	var diags []lsp.Diagnostic
	diags = append(diags, lsp.Diagnostic{Path: "a.go", Line: 3, Col: 2, Severity: "error", Message: "undefined: Foo"})
	for i := range 6 {
		diags = append(diags, lsp.Diagnostic{Path: "a.go", Line: 10 + i, Col: 1, Severity: "warning", Message: fmt.Sprintf("unused w%d", i), Existing: i == 0})
	}
	h := newHarness(t)
	h.size(100, 40)
	h.events(turnStarted(1, "go"),
		&loop.ToolCompleted{Header: hdr(loop.TypeToolCompleted, 1, time.Second), ID: "x", Name: "write_file", OK: true, DurationMS: 5,
			Output: "Overwrote a.go", Diff: "--- a/a.go\n+++ b/a.go\n@@ -1,1 +1,1 @@\n-x\n+y\n", Diagnostics: diags},
	)
	s := h.screen()
	contains(t, s, "│ +1 -1", "│ 7 diagnostics, 1 error (6 new)", "│ a.go:3:2: error: undefined: Foo",
		"a.go:10:1: warning: unused w0 (already there before this edit)", "… +2 more · ctrl+t full result")
	if strings.Contains(s, "unused w5") {
		t.Fatalf("the card lists more than %d diagnostics:\n%s", cardDiagnostics, s)
	}
}

// TestEditCardWithoutDiagnosticsIsUnchanged: no count line when the
// servers reported nothing.
func TestEditCardWithoutDiagnosticsIsUnchanged(t *testing.T) {
	h := newHarness(t)
	h.size(100, 40)
	h.events(turnStarted(1, "go"),
		&loop.ToolCompleted{Header: hdr(loop.TypeToolCompleted, 1, time.Second), ID: "x", Name: "patch", OK: true, DurationMS: 5,
			Output: "Patched a.go", Diff: "--- a/a.go\n+++ b/a.go\n@@ -1,1 +1,1 @@\n-x\n+y\n"},
	)
	if s := h.screen(); strings.Contains(s, "diagnostic") {
		t.Fatalf("a count line without diagnostics:\n%s", s)
	}
}
