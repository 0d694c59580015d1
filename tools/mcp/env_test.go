package mcp

import (
	"context"
	"testing"
)

// TestServerEnvironmentHasNoSecrets: a stdio server inherits neither
// the provider keys nor secret-looking variables, but gets its own env.
func TestServerEnvironmentHasNoSecrets(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-should-not-pass")
	t.Setenv("SOME_PASSWORD", "hunter2")
	t.Setenv("PLAIN_VALUE", "visible")
	cfg := stdioConfig("envsrv")
	cfg.Env["SERVER_TOKEN"] = "its-own"
	cfg.Env["TALARIA_MCP_TEST_GETENV"] = "1"
	m, errs := connect(context.Background(), []ServerConfig{cfg})
	defer m.Close()
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	tool := toolsByName(m.Tools())["envsrv__getenv"]
	if tool == nil {
		t.Fatal("no getenv tool")
	}
	for name, want := range map[string]string{"OPENAI_API_KEY": "", "SOME_PASSWORD": "", "PLAIN_VALUE": "visible", "SERVER_TOKEN": "its-own"} {
		r, _ := call(t, tool, `{"text":"`+name+`"}`)
		if r.Output != name+"="+want {
			t.Errorf("%s: %q", name, r.Output)
		}
	}
}
