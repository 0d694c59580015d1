package app_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"talaria/loop/app"
	pt "talaria/providers/providertest"
	"talaria/tools/mcp/mcptest"
)

// TestMCPInstructionsInTheSystemPrompt: a new session's prompt takes the
// MCP servers' instructions under each server's name, and the prompt stays
// byte for byte the same on the next turn (here after a restart with -c).
func TestMCPInstructionsInTheSystemPrompt(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	mcpSrv := httptest.NewServer(mcptest.Handler(mcptest.Options{Instructions: "Use web tools kindly."}))
	defer mcpSrv.Close()
	writeConfig(t, home, "mcp_servers:\n  web:\n    url: "+mcpSrv.URL+"\n    startup_timeout: 5s\n")
	srv := pt.New(t)
	srv.Push(pt.ToolCalls(pt.Call{Name: "read_mcp_resource", Args: `{"server":"web","uri":"test://readme"}`}), pt.Text("first"), pt.Text("second"))
	if r := talaria(t, home, cwd, srv, "", "-p", "one"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	if r := talaria(t, home, cwd, srv, "", "-c", "-p", "two"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	raw := srv.RawRequests()
	if len(raw) != 3 {
		t.Fatalf("%d requests", len(raw))
	}
	sys := func(body string) string {
		i := strings.Index(body, `"messages":[`)
		j := strings.Index(body[i:], `},{`)
		return body[i : i+j]
	}
	want := `# MCP server instructions\n` + `Each MCP server's tools are named SERVER__TOOL. What the servers say about using them:\n## web\nUse web tools kindly.\n\nModel: `
	if !strings.Contains(sys(raw[0]), want) {
		t.Fatalf("instructions not in the prompt:\n%s", sys(raw[0]))
	}
	for i := 1; i < 3; i++ {
		if sys(raw[i]) != sys(raw[0]) {
			t.Fatalf("system prompt of request %d differs:\n%s\n%s", i, sys(raw[0]), sys(raw[i]))
		}
	}
	// The resource tools are offered, and read_mcp_resource read the
	// readme for the model.
	if !strings.Contains(raw[0], `"name":"list_mcp_resources"`) || !strings.Contains(raw[0], `"name":"web__echo"`) {
		t.Errorf("tools not offered: %s", raw[0])
	}
	if !strings.Contains(raw[1], mcptest.Readme) {
		t.Errorf("the resource did not reach the model: %s", raw[1])
	}
}

// slowHandler holds every request until release is closed: a server that
// is slow to start.
func slowHandler(h http.Handler, release <-chan struct{}) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		h.ServeHTTP(w, r)
	})
}

// TestTUISessionDoesNotWaitForMCP: opening a TUI session returns while a
// server still starts, and says so; the server comes up in the background.
func TestTUISessionDoesNotWaitForMCP(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	release := make(chan struct{})
	mcpSrv := httptest.NewServer(slowHandler(mcptest.Handler(mcptest.Options{}), release))
	defer mcpSrv.Close()
	writeConfig(t, home, "mcp_servers:\n  web:\n    url: "+mcpSrv.URL+"\n")
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
	s, err := app.Open(context.Background(), app.Flags{Home: filepath.Join(home, ".talaria"), Cwd: cwd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := s.MCPStarting(); len(got) != 1 || got[0] != "web" {
		t.Fatalf("starting = %v", got)
	}
	close(release)
}

// TestSlowMCPServerWorksHeadless: headless, talaria waits for a server
// that is slow to start (within its startup_timeout) and its tools work
// in the first turn.
func TestSlowMCPServerWorksHeadless(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	release := make(chan struct{})
	mcpSrv := httptest.NewServer(slowHandler(mcptest.Handler(mcptest.Options{}), release))
	defer mcpSrv.Close()
	go func() { time.Sleep(2 * time.Second); close(release) }() // the server takes 2s to start
	writeConfig(t, home, "mcp_servers:\n  web:\n    url: "+mcpSrv.URL+"\n    startup_timeout: 20s\n")
	srv := pt.New(t)
	srv.Push(pt.ToolCalls(pt.Call{Name: "web__echo", Args: `{"text":"slow but there"}`}), pt.Text("done"))
	if r := talaria(t, home, cwd, srv, "", "--yolo", "-p", "go"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	raw := srv.RawRequests()
	if len(raw) != 2 || !strings.Contains(raw[0], `"name":"web__echo"`) || !strings.Contains(raw[1], "echo: slow but there") {
		t.Fatalf("requests: %q", raw)
	}
}
