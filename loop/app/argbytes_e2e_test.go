package app_test

import (
	"encoding/json"
	"strings"
	"testing"

	pt "talaria/providers/providertest"
)

// argBytes are tool arguments as a model writes them, with the characters
// encoding/json escapes by default for HTML (<, >, &) and a non-ASCII one.
const argBytes = `{"command":"echo a > out.txt && cat out.txt < /dev/null; echo 'é'"}`

// TestToolArgumentsKeepTheModelsBytes: the arguments of a tool call go
// back to the provider in the next request exactly as the model wrote
// them, not with \u003e, \u003c, \u0026 in their place, and `talaria
// export` shows them as written too (issue 24 defect 8).
func TestToolArgumentsKeepTheModelsBytes(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	srv := pt.New(t)
	srv.Push(pt.ToolCalls(pt.Call{Name: "terminal", Args: argBytes}), pt.Text("done"))
	r := talaria(t, home, cwd, srv, "", "-p", "go", "--yolo")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	var sent []string
	msgs, _ := reqs[1]["messages"].([]any)
	for _, m := range msgs {
		mm, _ := m.(map[string]any)
		calls, _ := mm["tool_calls"].([]any)
		for _, c := range calls {
			fn, _ := c.(map[string]any)["function"].(map[string]any)
			s, _ := fn["arguments"].(string)
			sent = append(sent, s)
		}
	}
	if len(sent) != 1 || sent[0] != argBytes {
		t.Errorf("arguments sent back:\n got %q\nwant %q", sent, argBytes)
	}
	raw := srv.RawRequests()[1]
	for _, esc := range []string{`\\u003e`, `\\u003c`, `\\u0026`} {
		if i := strings.Index(raw, esc); i >= 0 {
			t.Errorf("the request body carries %s: …%s…", esc, raw[max(i-80, 0):min(i+80, len(raw))])
		}
	}
	ls := talaria(t, home, cwd, nil, "", "sessions", "--json")
	var list []map[string]any
	if err := json.Unmarshal([]byte(ls.stdout), &list); err != nil || len(list) != 1 {
		t.Fatalf("sessions: %v %q", err, ls.stdout)
	}
	ex := talaria(t, home, cwd, nil, "", "export", list[0]["id"].(string))
	if ex.code != 0 {
		t.Fatalf("export: %d %s", ex.code, ex.stderr)
	}
	if strings.Contains(ex.stdout, `\u003e`) || strings.Contains(ex.stdout, `\u0026`) {
		t.Errorf("export shows JSON escapes: %s", ex.stdout)
	}
	md := talaria(t, home, cwd, nil, "", "export", list[0]["id"].(string), "--format", "markdown")
	if md.code == 0 && (strings.Contains(md.stdout, `\u003e`) || strings.Contains(md.stdout, `\u0026`)) {
		t.Errorf("markdown export shows JSON escapes: %s", md.stdout)
	}
}
