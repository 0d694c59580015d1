package app_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	pt "talaria/providers/providertest"
)

// runRules runs one headless turn (ask mode unless args say otherwise)
// whose model calls terminal with each command, and returns the results.
func runRules(t *testing.T, home, cwd string, cmds []string, args ...string) []string {
	t.Helper()
	srv := pt.New(t)
	for _, c := range cmds {
		srv.Push(pt.ToolCalls(pt.Call{Name: "terminal", Args: `{"command":"` + c + `"}`}))
	}
	srv.Push(pt.Text("done"))
	r := talaria(t, home, cwd, srv, "", append([]string{"-p", "go"}, args...)...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	res := toolResults(t, srv)
	if len(res) != len(cmds) {
		t.Fatalf("results %q", res)
	}
	return res
}

// TestPermissionRulesHeadless: headless ask mode obeys permissions: an
// allowed git status runs without --yolo; a command no rule covers is
// denied; a deny rule blocks under --yolo; ls runs unasked without any
// rule (the known-safe list, outside the sandbox) and ls > out does not.
func TestPermissionRulesHeadless(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	home, cwd := t.TempDir(), t.TempDir()
	if out, err := exec.Command("git", "init", "-q", cwd).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	if err := os.WriteFile(filepath.Join(cwd, "victim.txt"), []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeConfig(t, home, "permissions:\n  allow: [\"Bash(git status:*)\"]\n  deny: [\"Bash(rm:*)\"]\n")

	res := runRules(t, home, cwd, []string{"git status --short", "git status; touch pwned", "git add victim.txt"})
	if strings.Contains(res[0], "was not run") || !strings.Contains(res[0], "victim.txt") {
		t.Errorf("allowed git status did not run: %q", res[0])
	}
	for _, r := range res[1:] {
		if !strings.Contains(r, "was not run") {
			t.Errorf("a command no rule covers ran headless in ask mode: %q", r)
		}
	}
	if _, err := os.Stat(filepath.Join(cwd, "pwned")); err == nil {
		t.Error("the allow rule covered a compound with another command")
	}

	res = runRules(t, home, cwd, []string{"rm -f victim.txt", "ls && sudo rm victim.txt", "echo ok"}, "--yolo")
	for _, r := range res[:2] {
		if !strings.Contains(r, "Bash(rm:*)") || !strings.Contains(r, "permissions.deny") {
			t.Errorf("deny rule did not block under --yolo: %q", r)
		}
	}
	if !strings.Contains(res[2], "ok") || strings.Contains(res[2], "was not run") {
		t.Errorf("--yolo blocked a command no deny rule covers: %q", res[2])
	}
	if b, err := os.ReadFile(filepath.Join(cwd, "victim.txt")); err != nil || string(b) != "keep\n" {
		t.Errorf("victim.txt changed: %q %v", b, err)
	}

	// No rules at all: ls runs unasked, ls > out is refused.
	home2 := t.TempDir()
	res = runRules(t, home2, cwd, []string{"ls", "ls > out.txt", "git status --short"})
	if strings.Contains(res[0], "was not run") || !strings.Contains(res[0], "victim.txt") {
		t.Errorf("ls did not run unasked: %q", res[0])
	}
	if !strings.Contains(res[1], "was not run") {
		t.Errorf("ls > out.txt ran unasked: %q", res[1])
	}
	if _, err := os.Stat(filepath.Join(cwd, "out.txt")); err == nil {
		t.Error("out.txt was written")
	}
	if strings.Contains(res[2], "was not run") {
		t.Errorf("git status (known safe) did not run unasked: %q", res[2])
	}
}

// TestPermissionRuleMalformedExits2: a malformed rule is a config error
// naming the key and the rule; no turn runs.
func TestPermissionRuleMalformedExits2(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	writeConfig(t, home, "permissions:\n  deny: [\"Bash(rm:*)\", \"Bash(git *x)\"]\n")
	srv := pt.New(t)
	r := talaria(t, home, cwd, srv, "", "-p", "hi")
	if r.code != 2 || !strings.Contains(r.stderr, "permissions.deny[1]") || !strings.Contains(r.stderr, "Bash(git *x)") {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if len(srv.Requests()) != 0 {
		t.Error("a turn ran")
	}
}
