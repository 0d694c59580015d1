package ui

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"talaria/tools"
)

// editFixture writes parser.go in a temp dir and returns the dir and a
// patch request changing it.
func editFixture(t testing.TB) (string, tools.ApprovalRequest) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("package parser\n\nimport \"errors\"\n\n")
	for i := range 30 {
		fmt.Fprintf(&b, "// line %d of the parser\n", i)
	}
	b.WriteString("func skip(t token) bool {\n\tif t == comma {\n\t\treturn true\n\t}\n\treturn false\n}\n")
	if err := os.WriteFile(filepath.Join(dir, "parser.go"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal(map[string]any{"mode": "replace", "path": "parser.go", "old_string": "\tif t == comma {\n\t\treturn true\n\t}",
		"new_string": "\tif t == comma && next != end {\n\t\treturn skip(next)\n\t}"})
	return dir, tools.ApprovalRequest{Tool: "patch", Summary: "Edit: parser.go", Args: string(args)}
}

// showWithDiff shows the next request and feeds back its computed diff.
func (h *harness) showWithDiff(d *Dialogs) *dialogRequest {
	h.t.Helper()
	r := <-d.reqs
	for _, msg := range h.send(dialogMsg{req: r}) {
		if dm, ok := msg.(diffReadyMsg); ok {
			h.send(dm)
		}
	}
	h.arm()
	if !r.hasDiff() {
		h.t.Fatalf("no diff computed: %+v", r.diff)
	}
	return r
}

func TestGoldenApprovalDiff(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			dir, req := editFixture(t)
			d := NewDialogs()
			h := newHarness(t, withDialogs(d), func(o *Options) { o.Cwd = dir })
			h.size(sz[0], sz[1])
			approveAsync(callCtx(t), d, req)
			h.showWithDiff(d)
			s := h.screen()
			contains(t, s, "Allow patch? parser.go +2 -2", "│ -    if t == comma {", "│ +    if t == comma && next != end {", "│ @@ ")
			golden(t, h.m.View().Content)
		})
	}
}

func TestApprovalDiffScrollsAndGoesFullScreen(t *testing.T) {
	dir := t.TempDir()
	var old, new strings.Builder
	for i := range 200 {
		fmt.Fprintf(&old, "old line %d\n", i)
		fmt.Fprintf(&new, "new line %d\n", i)
	}
	_ = os.WriteFile(filepath.Join(dir, "big.txt"), []byte(old.String()), 0o644)
	args, _ := json.Marshal(map[string]any{"path": "big.txt", "content": new.String()})
	d := NewDialogs()
	h := newHarness(t, withDialogs(d), func(o *Options) { o.Cwd = dir })
	h.size(80, 24)
	approveAsync(callCtx(t), d, tools.ApprovalRequest{Tool: "write_file", Summary: "Write: big.txt", Args: string(args)})
	r := h.showWithDiff(d)
	contains(t, h.screen(), "+200 -200", "│ -old line 0")
	h.key("pgdown")
	h.key("pgdown")
	if r.diff.top == 0 || strings.Contains(h.screen(), "│ -old line 0 ") {
		t.Fatalf("pgdown did not scroll: top %d", r.diff.top)
	}
	h.key("end")
	contains(t, h.screen(), "│ +new line 199")
	rowsBefore := h.m.diffRows(r)
	h.key("f")
	if h.m.diffRows(r) <= rowsBefore {
		t.Fatalf("full screen did not grow the diff: %d → %d", rowsBefore, h.m.diffRows(r))
	}
	h.key("y")
	if h.m.dialog() != nil {
		t.Fatal("y did not answer the approval")
	}
}

// BenchmarkApprovalDiffOpen5MB: what opening the approval of a one-line
// patch to a 5 MB file costs: the preview (read, apply, diff) and the first
// frame of the dialog.
func BenchmarkApprovalDiffOpen5MB(b *testing.B) {
	dir := b.TempDir()
	var sb strings.Builder
	for i := 0; sb.Len() < 5<<20; i++ {
		fmt.Fprintf(&sb, "line %d of a big generated file, with some text to make it longer\n", i)
	}
	_ = os.WriteFile(filepath.Join(dir, "big.txt"), []byte(sb.String()), 0o644)
	args, _ := json.Marshal(map[string]any{"path": "big.txt", "old_string": "line 40000 of", "new_string": "LINE 40000 of"})
	req := tools.ApprovalRequest{Tool: "patch", Summary: "Edit: big.txt", Args: string(args)}
	h := newHarness(b)
	h.size(120, 40)
	for b.Loop() {
		r := &dialogRequest{kind: dialogApproval, approval: req}
		r.diff = newDiffView(dir, "patch", req.Args)
		if !r.hasDiff() {
			b.Fatal(r.diff.err)
		}
		h.m.modal.queue = []*dialogRequest{r}
		_ = h.m.View()
	}
}
