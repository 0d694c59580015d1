package app_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	pt "talaria/providers/providertest"
	"talaria/tools/mcp/mcptest"
)

// TestReadOnlyModeRunsServerMarkedReadOnlyMCPTools: with approvals:
// read-only, an MCP tool its server marks read-only (readOnlyHint: echo)
// runs, as it does in auto-edit, while one that may change things
// (write) is refused as the plan mode refuses edits (issue 24: read-only
// refused echo, which auto-edit allowed).
func TestReadOnlyModeRunsServerMarkedReadOnlyMCPTools(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	mcpSrv := httptest.NewServer(mcptest.Handler(mcptest.Options{}))
	defer mcpSrv.Close()
	writeConfig(t, home, "approvals: read-only\nmcp_servers:\n  web:\n    url: "+mcpSrv.URL+"\n    startup_timeout: 10s\n")
	srv := pt.New(t)
	srv.Push(pt.ToolCalls(pt.Call{Name: "web__echo", Args: `{"text":"plan"}`}), pt.ToolCalls(pt.Call{Name: "web__write", Args: `{"text":"x"}`}), pt.Text("done"))
	if r := talaria(t, home, cwd, srv, "", "-p", "go"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	res := toolResults(t, srv)
	if len(res) != 2 {
		t.Fatalf("results: %q", res)
	}
	if !strings.Contains(res[0], "echo: plan") {
		t.Errorf("the read-only MCP tool did not run in read-only mode: %q", res[0])
	}
	if !strings.Contains(res[1], "the session is read-only") || strings.Contains(res[1], "wrote") {
		t.Errorf("the MCP tool that may write was not refused: %q", res[1])
	}
}
