package app_test

import (
	"encoding/json"
	"strings"
	"testing"

	pt "talaria/providers/providertest"
)

// TestExportMarkdownThroughBinary: `talaria export ID --format markdown`
// shows a heading per turn, the user's and the model's text, each tool
// call as a fenced block of its arguments with the model's own bytes (no
// \u003e or \u0026, multi-line strings as blocks), and each result
// fenced and capped; the default stays JSON Lines.
func TestExportMarkdownThroughBinary(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	srv := pt.New(t)
	srv.Push(
		pt.ToolCalls(pt.Call{Name: "terminal", Args: `{"command":"echo 'a > b && c' ; seq 1 300"}`}),
		pt.Text("Printed **three hundred** lines."),
		pt.ToolCalls(pt.Call{Name: "write_file", Args: `{"path":"notes.md","content":"line one\nline ` + "```" + ` two\n"}`}),
		pt.Text("Wrote notes.md."),
	)
	if r := talaria(t, home, cwd, srv, "", "-p", "count to 300", "--yolo"); r.code != 0 {
		t.Fatalf("turn 1: exit %d\n%s", r.code, r.stderr)
	}
	ls := talaria(t, home, cwd, nil, "", "sessions", "--json")
	var list []map[string]any
	if err := json.Unmarshal([]byte(ls.stdout), &list); err != nil || len(list) != 1 {
		t.Fatalf("sessions: %q %v", ls.stdout, err)
	}
	id := list[0]["id"].(string)
	if r := talaria(t, home, cwd, srv, "", "-r", id, "-p", "write notes", "--yolo"); r.code != 0 {
		t.Fatalf("turn 2: exit %d\n%s", r.code, r.stderr)
	}
	md := talaria(t, home, cwd, nil, "", "export", id, "--format", "markdown")
	if md.code != 0 {
		t.Fatalf("export markdown: exit %d\n%s", md.code, md.stderr)
	}
	out := md.stdout
	for _, want := range []string{
		"# count to 300\n",
		"\n## Turn 1 · ", "\n## Turn 2 · ",
		"\n### User\n\ncount to 300\n",
		"\n### Assistant\n\nPrinted **three hundred** lines.\n",
		"**Tool call** `terminal`",
		"```yaml\ncommand: echo 'a > b && c' ; seq 1 300\n```",
		"**Result** of `terminal`",
		"more line(s)",
		"content: |\n  line one\n  line ``` two\n",
		"````yaml\n", // a fence longer than the backticks inside
	} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown export lacks %q", want)
		}
	}
	for _, bad := range []string{`\u003e`, `\u0026`, `\n`, "\n300\n"} {
		if strings.Contains(out, bad) {
			t.Errorf("markdown export holds %q", bad)
		}
	}
	if strings.Index(out, "## Turn 1") > strings.Index(out, "## Turn 2") {
		t.Error("turns out of order")
	}
	// Flag before the id, and the default.
	if r := talaria(t, home, cwd, nil, "", "export", "--format=md", id); r.code != 0 || r.stdout != out {
		t.Errorf("--format=md before the id: exit %d, same output %v", r.code, r.stdout == out)
	}
	js := talaria(t, home, cwd, nil, "", "export", id)
	if js.code != 0 || !strings.HasPrefix(js.stdout, `{"role":"user"`) {
		t.Errorf("default export is not JSON Lines: %.80q", js.stdout)
	}
	if r := talaria(t, home, cwd, nil, "", "export", id, "--format", "pdf"); r.code != 2 || !strings.Contains(r.stderr, "pdf") {
		t.Errorf("bad format: exit %d %q", r.code, r.stderr)
	}
}
