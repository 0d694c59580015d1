package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExtensionsCommandJSON(t *testing.T) {
	proj := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	writeFile := func(p, s string) {
		t.Helper()
		must(os.MkdirAll(filepath.Dir(p), 0o755))
		must(os.WriteFile(p, []byte(s), 0o644))
	}
	must(os.Mkdir(filepath.Join(proj, ".git"), 0o755))
	writeFile(filepath.Join(proj, ".claude", "commands", "review.md"), "---\ndescription: Review\n---\nReview $ARGUMENTS\n")
	writeFile(filepath.Join(proj, ".claude", "commands", "help.md"), "shadow\n")
	writeFile(filepath.Join(proj, ".claude", "settings.json"), `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"./block.sh"}]}]}}`)
	writeFile(filepath.Join(proj, ".talaria", "config.yaml"), "hooks:\n  Stop:\n    - hooks:\n        - command: ./stop.sh\n")
	home := t.TempDir()
	writeFile(filepath.Join(home, "config.yaml"), "hooks:\n  PostToolUse:\n    - matcher: Write|Edit\n      hooks:\n        - command: gofmt -w .\n          timeout: 10\n")

	get := func() extensionsReport {
		t.Helper()
		var out, errb bytes.Buffer
		if rc := run([]string{"--home", home, "--cwd", proj, "extensions", "--json"}, strings.NewReader(""), &out, &errb); rc != 0 {
			t.Fatalf("rc %d: %s", rc, errb.String())
		}
		var rep extensionsReport
		must(json.Unmarshal(out.Bytes(), &rep))
		return rep
	}
	rep := get()
	if len(rep.Commands) != 1 || rep.Commands[0].Name != "review" || !strings.HasSuffix(rep.Commands[0].Source.Path, "review.md") {
		t.Errorf("commands = %+v (help.md must not shadow /help)", rep.Commands)
	}
	if rep.Trusted || len(rep.Hooks) != 3 {
		t.Fatalf("trusted %v hooks %+v", rep.Trusted, rep.Hooks)
	}
	for _, h := range rep.Hooks {
		if want := h.Source.Origin != "project"; h.Trusted != want {
			t.Errorf("hook %s from %s: trusted %v, want %v", h.Command, h.Source.Path, h.Trusted, want)
		}
	}
	shadow := false
	for _, n := range rep.Notices {
		shadow = shadow || strings.Contains(n.Msg, "built-in")
	}
	if !shadow {
		t.Errorf("no notice for help.md: %+v", rep.Notices)
	}

	writeFile(filepath.Join(home, "config.yaml"), "trusted_projects: ["+proj+"]\n")
	if rep := get(); !rep.Trusted || len(rep.Hooks) != 2 || !rep.Hooks[0].Trusted {
		t.Errorf("after trusting: %+v", rep)
	}

	var out, errb bytes.Buffer
	if rc := run([]string{"--home", home, "--cwd", proj, "extensions"}, strings.NewReader(""), &out, &errb); rc != 0 || !strings.Contains(out.String(), "/review") {
		t.Errorf("text: rc %d\n%s%s", rc, out.String(), errb.String())
	}
}

// TestExtensionsListsRules: the user's rules and the project's are listed
// with their files; an untrusted project's rules (deny included) are
// shown as ignored.
func TestExtensionsListsRules(t *testing.T) {
	proj, home := t.TempDir(), t.TempDir()
	for p, s := range map[string]string{
		filepath.Join(proj, ".git", "HEAD"):                   "ref: refs/heads/main\n",
		filepath.Join(proj, ".talaria", "config.yaml"):        "permissions:\n  allow: [\"Bash(make:*)\"]\n",
		filepath.Join(proj, ".claude", "settings.local.json"): `{"permissions":{"deny":["Bash(rm:*)"]}}`,
		filepath.Join(home, "config.yaml"):                    "permissions:\n  ask: [\"Bash(git push:*)\"]\n",
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out, errb bytes.Buffer
	if rc := run([]string{"--home", home, "--cwd", proj, "extensions", "--json"}, strings.NewReader(""), &out, &errb); rc != 0 {
		t.Fatalf("rc %d: %s", rc, errb.String())
	}
	var rep extensionsReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, r := range rep.Rules {
		got[r.List+" "+r.Rule] = r.Applied
	}
	want := map[string]bool{"ask Bash(git push:*)": true, "allow Bash(make:*)": false, "deny Bash(rm:*)": false}
	for k, v := range want {
		if a, ok := got[k]; !ok || a != v {
			t.Errorf("%s: listed %v applied %v, want applied %v (all: %v)", k, ok, a, v, got)
		}
	}
	out.Reset()
	if rc := run([]string{"--home", home, "--cwd", proj, "extensions"}, strings.NewReader(""), &out, &errb); rc != 0 {
		t.Fatalf("rc %d", rc)
	}
	if !strings.Contains(out.String(), "allow  Bash(make:*)") || !strings.Contains(out.String(), "[untrusted project: ignored]") {
		t.Errorf("text listing:\n%s", out.String())
	}
}
