package e2e_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	pt "talaria/providers/providertest"
)

// TestTUIRememberPrefixSaved: in the approval dialog, s then p allows
// commands starting with touch and saves Bash(touch:*) to the project's
// .talaria/config.yaml; the next touch of the same turn runs unasked.
func TestTUIRememberPrefixSaved(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	bin := buildBinary(t)
	srv := pt.New(t)
	home, cwd := t.TempDir(), t.TempDir()
	if out, err := exec.Command("git", "init", "-q", cwd).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	s := startIn(t, bin, srv, home, cwd, 80, 24, "Ask anything")
	srv.Push(
		pt.ToolCalls(pt.Call{Name: "terminal", Args: `{"command":"touch one.txt"}`}),
		pt.ToolCalls(pt.Call{Name: "terminal", Args: `{"command":"touch two.txt"}`}),
		pt.Text("both made"))
	s.typeLine("make two files")
	s.waitFor("commands starting with touch (p)")
	s.waitFor("esc deny") // armed
	s.keys("s")
	s.waitFor("[x] s: also save")
	s.keys("p")
	s.waitFor("both made")
	b, err := os.ReadFile(filepath.Join(cwd, ".talaria", "config.yaml"))
	if err != nil || !strings.Contains(string(b), "Bash(touch:*)") {
		t.Fatalf("rule not saved: %q %v", b, err)
	}
	for _, f := range []string{"one.txt", "two.txt"} {
		if _, err := os.Stat(filepath.Join(cwd, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if n := strings.Count(s.capture(), "Allow terminal?"); n != 0 {
		t.Errorf("a dialog is still open:\n%s", s.capture())
	}
}
