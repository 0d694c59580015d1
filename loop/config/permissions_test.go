package config

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestPermissionsValidate(t *testing.T) {
	cfg := Default()
	err := Parse([]byte("permissions:\n  allow: [\"Bash(git status:*)\", \"Read(./src/**)\"]\n  deny: [\"Bash(rm:*)\", \"Bash(git *x)\"]\n"), "c.yaml", &cfg)
	if err == nil || !strings.Contains(err.Error(), "permissions.deny[1]") || !strings.Contains(err.Error(), `"Bash(git *x)"`) {
		t.Fatalf("malformed rule: %v", err)
	}
	cfg = Default()
	if err := Parse([]byte("permissions:\n  allow: [\"Bash(git status:*)\"]\n  ask: [WebFetch]\n"), "c.yaml", &cfg); err != nil {
		t.Fatal(err)
	}
	rs, err := cfg.Permissions.Rules()
	if err != nil || len(rs.Allow) != 1 || len(rs.Ask) != 1 {
		t.Fatalf("rules %+v %v", rs, err)
	}
	cfg = Default()
	if err := Parse([]byte("permissions:\n  allwo: [Bash]\n"), "c.yaml", &cfg); err == nil {
		t.Error("unknown key under permissions accepted")
	}
}

func TestAddAllowRuleKeepsOtherKeys(t *testing.T) {
	dir := t.TempDir()
	file := ProjectConfigFile(dir)
	// A missing file and folder are created.
	if err := AddAllowRule(file, "Bash(npm run test:*)"); err != nil {
		t.Fatal(err)
	}
	p, err := ReadPermissions(file)
	if err != nil || len(p.Allow) != 1 || p.Allow[0] != "Bash(npm run test:*)" {
		t.Fatalf("%+v %v", p, err)
	}
	// Other keys, comments and existing rules stay; no duplicates.
	orig := "# project settings\nmodel:\n  name: m1 # the model\nhooks:\n  Stop: []\npermissions:\n  deny: [\"Bash(rm:*)\"]\n  allow:\n    - Read\n"
	if err := os.WriteFile(file, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(file, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, r := range []string{"Bash(git diff:*)", "Bash(git diff:*)", "Read"} {
		if err := AddAllowRule(file, r); err != nil {
			t.Fatal(err)
		}
	}
	data, _ := os.ReadFile(file)
	got := string(data)
	for _, want := range []string{"# project settings", "name: m1 # the model", "Stop: []", "Bash(rm:*)", "- Read", "Bash(git diff:*)"} {
		if !strings.Contains(got, want) {
			t.Errorf("lost %q:\n%s", want, got)
		}
	}
	if strings.Count(got, "git diff") != 1 || strings.Count(got, "Read") != 1 {
		t.Errorf("duplicated:\n%s", got)
	}
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
	cfg := Default()
	if err := Parse(data, file, &cfg); err != nil {
		t.Errorf("rewritten file does not load: %v", err)
	}
	// A malformed rule, a file that does not parse, a permissions key of
	// the wrong kind: errors, and the file is unchanged.
	if err := AddAllowRule(file, "Bash("); err == nil {
		t.Error("malformed rule saved")
	}
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("permissions: [x\n"), 0o644)
	if err := AddAllowRule(bad, "Bash"); err == nil {
		t.Error("unparsable file rewritten")
	}
	os.WriteFile(bad, []byte("permissions: 3\n"), 0o644)
	if err := AddAllowRule(bad, "Bash"); err == nil {
		t.Error("scalar permissions rewritten")
	}
	if data, _ := os.ReadFile(bad); string(data) != "permissions: 3\n" {
		t.Errorf("file changed: %q", data)
	}
	// Concurrent savers never leave a torn file (each rename is whole).
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); _ = AddAllowRule(file, "Bash(make:*)") }()
	}
	wg.Wait()
	if _, err := ReadPermissions(file); err != nil {
		t.Errorf("after concurrent saves: %v", err)
	}
	ents, _ := os.ReadDir(filepath.Dir(file))
	if len(ents) != 1 {
		t.Errorf("temporary files left: %v", ents)
	}
}

func TestReadClaudePermissions(t *testing.T) {
	file := filepath.Join(t.TempDir(), "settings.json")
	os.WriteFile(file, []byte(`{"permissions":{"allow":["Bash(npm run test:*)","Agent(Explore)"],"deny":["Read(./.env)"],"defaultMode":"default"},"hooks":{}}`), 0o644)
	p, err := ReadClaudePermissions(file)
	if len(p.Allow) != 1 || len(p.Deny) != 1 || p.Deny[0] != "Read(./.env)" {
		t.Fatalf("%+v", p)
	}
	if err == nil || !strings.Contains(err.Error(), "permissions.allow[1]") || !strings.Contains(err.Error(), "Agent(Explore)") {
		t.Errorf("skipped rule not named: %v", err)
	}
	if p, err := ReadClaudePermissions(filepath.Join(t.TempDir(), "none.json")); err != nil || len(p.Allow) != 0 {
		t.Errorf("missing file: %+v %v", p, err)
	}
}
