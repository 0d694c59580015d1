package sandbox_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"talaria/tools"
	"talaria/tools/sandbox"
	"talaria/tools/sandbox/sandboxtest"
)

// TestToolsUnderSandbox drives terminal and process through the sandbox:
// a timed-out command and a killed background process leave nothing
// behind, and a write the sandbox stopped says so.
func TestToolsUnderSandbox(t *testing.T) {
	env := sandboxedEnv(t)
	reg := tools.NewRegistry(tools.TerminalTool{}, tools.ProcessTool{})
	ctx := context.Background()

	res := reg.Call(ctx, env, "terminal", `{"command":"sleep 100","timeout":1}`)
	if !res.IsError || !strings.Contains(res.Output, "timed out") {
		t.Fatalf("timeout: %q", res.Output)
	}
	res = reg.Call(ctx, env, "terminal", `{"command":"touch `+filepath.Join(sandboxtest.Scratch(t, ".sbx-outside-"), "x")+`"}`)
	if !strings.Contains(res.Output, "probably stopped it") {
		t.Errorf("outside write: %q", res.Output)
	}
	marker := fmt.Sprintf("100.%d", os.Getpid()) // a sleep of its own length
	res = reg.Call(ctx, env, "terminal", `{"command":"sleep `+marker+`","background":true}`)
	if res.IsError {
		t.Fatal(res.Output)
	}
	res = reg.Call(ctx, env, "process", `{"action":"kill","id":"proc_1"}`)
	if res.IsError || !strings.Contains(res.Output, "killed") {
		t.Fatalf("kill: %q", res.Output)
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), marker) {
			t.Errorf("left running: %s %q", p, b)
		}
	}
}

// sandboxedEnv is a tool environment whose commands run under a
// workspace-write sandbox rooted at a fresh scratch directory (skipping
// where no sandbox can run); its process manager closes with the test.
func sandboxedEnv(t *testing.T) *tools.Env {
	t.Helper()
	base := sandboxtest.Scratch(t, ".sbx-test-")
	sb, err := sandbox.New(sandbox.Config{Mode: sandbox.WorkspaceWrite, Cwd: base})
	if err != nil {
		t.Skipf("no sandbox here: %v", err)
	}
	pm := tools.NewProcessManager()
	t.Cleanup(func() { _ = pm.Close() })
	return &tools.Env{Cwd: base, Processes: pm, Commands: tools.CommandPolicy{Sandbox: sb}}
}
