package app_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --allowedTools and --disallowedTools add permission rules for one
// headless run, as `claude -p` takes them: an allowed touch runs in ask
// mode without --yolo; a disallowed rm is refused under --yolo; one value
// may hold several rules (commas or spaces outside parentheses); a
// malformed rule is a usage error naming the flag.
func TestAllowedAndDisallowedToolsFlags(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(cwd, "victim.txt"), []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := runRules(t, home, cwd, []string{"touch made.txt", "mkdir d"}, "--allowedTools", "Bash(touch:*) Read,Bash(git diff:*)")
	if strings.Contains(res[0], "was not run") {
		t.Errorf("--allowedTools did not allow touch: %q", res[0])
	}
	if _, err := os.Stat(filepath.Join(cwd, "made.txt")); err != nil {
		t.Errorf("touch did not run: %v", err)
	}
	if !strings.Contains(res[1], "was not run") {
		t.Errorf("a command no rule covers ran in ask mode: %q", res[1])
	}

	res = runRules(t, home, cwd, []string{"rm -f victim.txt", "echo ok"}, "--yolo", "--disallowedTools", "Bash(rm:*)")
	if !strings.Contains(res[0], "Bash(rm:*)") {
		t.Errorf("--disallowedTools did not refuse rm under --yolo: %q", res[0])
	}
	if b, err := os.ReadFile(filepath.Join(cwd, "victim.txt")); err != nil || string(b) != "keep\n" {
		t.Errorf("victim.txt changed: %q %v", b, err)
	}
	if !strings.Contains(res[1], "ok") {
		t.Errorf("--yolo refused what no rule denies: %q", res[1])
	}

	r := talaria(t, home, cwd, nil, "", "-p", "go", "--allowedTools", "Bash(git *x)")
	if r.code != 2 || !strings.Contains(r.stderr, "--allowedTools") {
		t.Fatalf("a malformed rule: exit %d, stderr %q", r.code, r.stderr)
	}
}
