package app_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	pt "talaria/providers/providertest"
)

// TestSandboxBlockedCommandNoLeftoverNote: with --sandbox
// workspace-write, commands the sandbox blocked (they left nothing
// running) never come back with "[note: the command left background
// processes running…]". The note came from bubblewrap's namespace init,
// which outlives the first process by a moment: about one call in ten.
func TestSandboxBlockedCommandNoLeftoverNote(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bubblewrap is not installed")
	}
	home, base := t.TempDir(), notUnderTmp(t)
	const calls = 24
	srv := pt.New(t)
	for i := range calls {
		srv.Push(pt.ToolCalls(pt.Call{Name: "terminal", Args: fmt.Sprintf(`{"command":"touch %s"}`, filepath.Join(base, "outside", fmt.Sprint("x", i)))}))
	}
	srv.Push(pt.Text("done"))
	cwd := filepath.Join(base, "cwd")
	for _, d := range []string{cwd, filepath.Join(base, "outside")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r := talaria(t, home, cwd, srv, "", "-p", "blocked", "--sandbox", "workspace-write", "--max-iterations", "40")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	res := toolResults(t, srv)
	if len(res) != calls {
		t.Fatalf("%d results, want %d: %q", len(res), calls, res)
	}
	for i, s := range res {
		if !strings.Contains(s, "probably stopped it") {
			t.Errorf("result %d was not stopped by the sandbox: %q", i, s)
		}
		if strings.Contains(s, "background processes") {
			t.Errorf("result %d: a blocked command got a leftover note: %q", i, s)
		}
	}
}
