package sandbox_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"talaria/tools"
	"talaria/tools/sandbox/sandboxtest"
)

// TestSandboxBlockedCommandNoLeftoverNote: a command the sandbox blocked
// (it left nothing running) never gets the note that it left background
// processes. bubblewrap's namespace init outlives the first process by a
// moment, which made the note appear on about one call in ten; 40 calls
// make that near certain to show. A command that does leave a process
// behind leaves nothing running afterwards (the namespace takes it), and
// a note, when there is one, says they were stopped.
func TestSandboxBlockedCommandNoLeftoverNote(t *testing.T) {
	env := sandboxedEnv(t)
	reg := tools.NewRegistry(tools.TerminalTool{})
	target := filepath.Join(sandboxtest.Scratch(t, ".sbx-outside-"), "x")
	ctx := context.Background()
	for i := range 40 {
		res := reg.Call(ctx, env, "terminal", `{"command":"touch `+target+`"}`)
		if !strings.Contains(res.Output, "probably stopped it") {
			t.Fatalf("call %d was not stopped by the sandbox: %q", i, res.Output)
		}
		if strings.Contains(res.Output, "background processes") {
			t.Fatalf("call %d: a blocked command got a leftover note: %q", i, res.Output)
		}
	}
	marker := fmt.Sprintf("301.%d", os.Getpid())
	res := reg.Call(ctx, env, "terminal", `{"command":"sleep `+marker+` & echo hi"}`)
	if strings.Contains(res.Output, "background processes") && !strings.Contains(res.Output, "they were stopped") {
		t.Errorf("leftover note: %q", res.Output)
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), marker) {
			t.Errorf("left running: %s %q", p, b)
		}
	}
}
