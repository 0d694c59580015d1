package e2e_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	pt "talaria/providers/providertest"
)

// startIn starts talaria in cwd with home as $TALARIA_HOME's parent, at
// w×h columns, and waits for text.
func startIn(t *testing.T, bin string, srv *pt.Server, home, cwd string, w, h int, ready string) *screen {
	t.Helper()
	name := fmt.Sprintf("talaria-e2e-%d", time.Now().UnixNano())
	cmd := fmt.Sprintf("cd %s && env -i PATH=%q HOME=%s TERM=xterm-256color NO_COLOR=1 TALARIA_HOME=%s OPENAI_API_KEY=sk-test OPENAI_BASE_URL=%s %s; sleep 60",
		cwd, os.Getenv("PATH"), home, filepath.Join(home, ".talaria"), srv.URL(), bin)
	if out, err := exec.Command("tmux", "new-session", "-d", "-s", name, "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), cmd).CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v %s", err, out)
	}
	s := &screen{t: t, name: name, cwd: cwd}
	t.Cleanup(func() { _ = exec.Command("tmux", "kill-session", "-t", name).Run() })
	s.waitFor(ready)
	return s
}

// trustProject is a git project whose .talaria/config.yaml has a
// PreToolUse hook (it leaves a mark) and an allow rule for one command.
func trustProject(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	cwd := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", cwd).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	cfg := "hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: touch hook-ran\n" +
		"permissions:\n  allow: [\"Bash(touch made-by-model)\"]\n"
	if err := os.MkdirAll(filepath.Join(cwd, ".talaria"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cwd, ".talaria", "config.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return cwd
}

// TestTUITrustDialog: at start the TUI asks to trust a project with hooks
// and rules; trusting records the folder in the user's trusted_projects
// and applies both at once: the allowed command runs without a dialog and
// the hook runs before it.
func TestTUITrustDialog(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	bin := buildBinary(t)
	srv := pt.New(t)
	home, cwd := t.TempDir(), trustProject(t)
	s := startIn(t, bin, srv, home, cwd, 80, 24, "Trust this project?")
	screen := s.capture()
	for _, want := range []string{"hook PreToolUse Bash: touch hook-ran", "allow Bash(touch made-by-model)", "Trust this folder", "Not now"} {
		if !strings.Contains(screen, want) {
			t.Errorf("dialog lacks %q:\n%s", want, screen)
		}
	}
	s.waitFor("esc not now") // armed: the key hints replace the faint dots
	s.keys("t")
	s.waitFor("apply from now on")
	b, err := os.ReadFile(filepath.Join(home, ".talaria", "config.yaml"))
	if err != nil || !strings.Contains(string(b), "trusted_projects:") {
		t.Fatalf("trust not recorded: %q %v", b, err)
	}

	srv.Push(pt.ToolCalls(pt.Call{Name: "terminal", Args: `{"command":"touch made-by-model"}`}), pt.Text("made it"))
	s.typeLine("make it")
	s.waitFor("made it")
	if strings.Contains(s.capture(), "Allow terminal?") {
		t.Errorf("the trusted allow rule did not apply:\n%s", s.capture())
	}
	for _, f := range []string{"made-by-model", "hook-ran"} {
		if _, err := os.Stat(filepath.Join(cwd, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// TestTUITrustNotNow: "not now" keeps the project's hook from running and
// its allow rule off (the command asks); nothing is recorded.
func TestTUITrustNotNow(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	bin := buildBinary(t)
	srv := pt.New(t)
	home, cwd := t.TempDir(), trustProject(t)
	s := startIn(t, bin, srv, home, cwd, 60, 20, "Trust this project?")
	s.waitFor("esc not now")
	s.keys("n")
	s.waitGone("Trust this project?")
	srv.Push(pt.ToolCalls(pt.Call{Name: "terminal", Args: `{"command":"touch made-by-model"}`}), pt.Text("done"))
	s.typeLine("make it")
	s.waitFor("Allow terminal?")
	s.keys("Escape")
	s.waitFor("done")
	for _, f := range []string{"made-by-model", "hook-ran"} {
		if _, err := os.Stat(filepath.Join(cwd, f)); err == nil {
			t.Errorf("%s exists in an untrusted project", f)
		}
	}
	if b, err := os.ReadFile(filepath.Join(home, ".talaria", "config.yaml")); err == nil && strings.Contains(string(b), "trusted_projects") {
		t.Errorf("trust recorded after not now: %q", b)
	}
}
