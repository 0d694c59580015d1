package app_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pt "talaria/providers/providertest"
	"talaria/tools/mcp/mcptest"
)

// A stdio MCP server that floods its stdout with lines that are not
// JSON-RPC (300,000 of them, then it serves) leaves talaria.log small:
// the first lines and a count.
func TestStrayMCPFloodLeavesTheLogSmall(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	exe, _ := json.Marshal(os.Args[0])
	writeConfig(t, home, "mcp_servers:\n  spew:\n    command: /bin/sh\n"+
		"    args: [\"-c\", \"yes 'INFO junk on stdout' | head -n 300000; exec \\\"$0\\\" -test.run='^$'\", "+string(exe)+"]\n"+
		"    env: {"+mcptest.EnvServer+": \"1\"}\n    startup_timeout: 60s\n")
	srv := pt.New(t)
	srv.Push(pt.ToolCalls(pt.Call{Name: "spew__echo", Args: `{"text":"hi"}`}), pt.Text("done"))
	if r := talaria(t, home, cwd, srv, "", "--yolo", "-p", "call the server"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if reqs := srv.RawRequests(); len(reqs) != 2 || !strings.Contains(reqs[1], "echo: hi") {
		t.Fatalf("the server's tool did not answer: %v", reqs)
	}
	log, err := os.ReadFile(filepath.Join(home, ".talaria", "logs", "talaria.log"))
	if err != nil {
		t.Fatal(err)
	}
	if len(log) > 64<<10 {
		t.Errorf("talaria.log holds %d bytes after the flood", len(log))
	}
	if !strings.Contains(string(log), "more stray lines suppressed]") {
		t.Errorf("the log does not count the lines it left out:\n%.2000s", log)
	}
}
