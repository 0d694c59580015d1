package ui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"talaria/tools"
)

// TestApprovalDiffWrapsAt60x20: at 60×20 a diff line longer than the
// dialog is wrapped onto marked continuation rows, not cut with "…";
// ctrl+t opens the pager over the dialog and q brings the dialog back.
func TestApprovalDiffWrapsAt60x20(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n\nvar x = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	long := `var message = "this replacement line is long enough to need two rows at sixty columns: END"`
	args, _ := json.Marshal(map[string]any{"mode": "replace", "path": "a.go", "old_string": "var x = 1", "new_string": long})
	d := NewDialogs()
	h := newHarness(t, withDialogs(d), func(o *Options) { o.Cwd = dir })
	h.size(60, 20)
	approveAsync(callCtx(t), d, tools.ApprovalRequest{Tool: "patch", Summary: "Edit: a.go", Args: string(args)})
	h.showWithDiff(d)
	s := h.screen()
	contains(t, s, "│ +var message = \"this replacement line", "↪ ", "END\"")
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, "+var message") && strings.Contains(l, "…") {
			t.Errorf("the diff line was cut: %q", l)
		}
	}
	h.key("ctrl+t")
	contains(t, h.screen(), "pager · lines")
	h.key("q")
	contains(t, h.screen(), "Allow patch?")
	if h.m.pager != nil {
		t.Error("the pager stayed open")
	}
}
