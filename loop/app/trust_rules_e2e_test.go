package app_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// projectWithRules makes a git project whose .talaria/config.yaml allows
// `touch allowed-*` and whose .claude/settings.json denies `echo` and
// .claude/settings.local.json allows `touch local-*`.
func projectWithRules(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	cwd := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", cwd).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	for name, body := range map[string]string{
		".talaria/config.yaml":        "permissions:\n  allow: [\"Bash(touch allowed-one)\"]\n",
		".claude/settings.json":       `{"permissions": {"deny": ["Bash(echo:*)"], "allow": ["Bash(touch shared-one)"]}}`,
		".claude/settings.local.json": `{"permissions": {"allow": ["Bash(touch local-one)"]}}`,
	} {
		p := filepath.Join(cwd, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return cwd
}

// TestProjectRulesNeedTrust: a project's allow rules (.talaria/config.yaml,
// .claude/settings.json, .claude/settings.local.json) do nothing while the
// folder is untrusted, apply with --trust or trusted_projects; so does its
// deny rule (CONTRACT.md: an untrusted project's rules are ignored), which
// once trusted holds under --yolo too.
func TestProjectRulesNeedTrust(t *testing.T) {
	cwd := projectWithRules(t)
	cmds := []string{"touch allowed-one", "touch shared-one", "touch local-one", "echo hi"}
	gone := func() {
		for _, f := range []string{"allowed-one", "shared-one", "local-one"} {
			_ = os.Remove(filepath.Join(cwd, f))
		}
	}

	// Untrusted: the allow rules are ignored (headless ask mode refuses),
	// and so is the deny rule (echo is known safe: it runs).
	home := t.TempDir()
	res := runRules(t, home, cwd, cmds)
	for i, r := range res[:3] {
		if !strings.Contains(r, "needs the user's approval") {
			t.Errorf("untrusted project's allow rule applied to %q: %q", cmds[i], r)
		}
	}
	if strings.Contains(res[3], "permissions.deny") || strings.Contains(res[3], "was not run") {
		t.Errorf("untrusted project's deny rule applied: %q", res[3])
	}
	for _, f := range []string{"allowed-one", "shared-one", "local-one"} {
		if _, err := os.Stat(filepath.Join(cwd, f)); err == nil {
			t.Errorf("%s was created in an untrusted project", f)
		}
	}

	// --trust: they apply.
	res = runRules(t, home, cwd, cmds, "--trust")
	for i, r := range res[:3] {
		if strings.Contains(r, "was not run") {
			t.Errorf("trusted project's allow rule did not apply to %q: %q", cmds[i], r)
		}
	}
	if !strings.Contains(res[3], "permissions.deny") {
		t.Errorf("deny rule did not apply when trusted: %q", res[3])
	}
	gone()

	// trusted_projects in the user's config, and a user allow rule that
	// the project's deny still beats.
	writeConfig(t, home, "trusted_projects: ["+cwd+"]\npermissions:\n  allow: [\"Bash(echo:*)\"]\n")
	res = runRules(t, home, cwd, cmds)
	for i, r := range res[:3] {
		if strings.Contains(r, "was not run") {
			t.Errorf("trusted_projects: allow rule did not apply to %q: %q", cmds[i], r)
		}
	}
	if !strings.Contains(res[3], "permissions.deny") {
		t.Errorf("the user's allow lifted the project's deny: %q", res[3])
	}
	gone()

	// Trusted, the project's deny holds under --yolo; untrusted, it is
	// ignored there too.
	res = runRules(t, t.TempDir(), cwd, []string{"echo hi"}, "--yolo", "--trust")
	if !strings.Contains(res[0], "permissions.deny") {
		t.Errorf("deny rule did not apply under --yolo: %q", res[0])
	}
	res = runRules(t, t.TempDir(), cwd, []string{"echo hi"}, "--yolo")
	if strings.Contains(res[0], "permissions.deny") {
		t.Errorf("an untrusted project's deny rule applied under --yolo: %q", res[0])
	}
}

// TestProjectRulesClaudeDirsOff: with extensions.claude_dirs false the
// .claude/ settings add no rule, not even a deny.
func TestProjectRulesClaudeDirsOff(t *testing.T) {
	cwd := projectWithRules(t)
	home := t.TempDir()
	writeConfig(t, home, "extensions:\n  claude_dirs: false\n")
	res := runRules(t, home, cwd, []string{"echo hi", "touch allowed-one"}, "--trust")
	if strings.Contains(res[0], "was not run") {
		t.Errorf(".claude deny applied with claude_dirs off: %q", res[0])
	}
	if strings.Contains(res[1], "was not run") {
		t.Errorf(".talaria allow did not apply when trusted: %q", res[1])
	}
}
