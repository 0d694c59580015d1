package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestApprovalKeySpellingsAreRefused: every spelling of an argument key
// that the tool would have taken for the canonical one (case, duplicates)
// is an error result the model can read, in every mode, yolo included, and
// the user is never asked about it.
func TestApprovalKeySpellingsAreRefused(t *testing.T) {
	const v4aOut = "*** Begin Patch\n*** Add File: /etc/talaria-x\n+x\n*** End Patch"
	cases := []struct{ tool, args, want string }{
		{"patch", `{"PATCH":"` + jsonEsc(v4aOut) + `"}`, `did you mean "patch"`},
		{"patch", `{"Patch":"` + jsonEsc(v4aOut) + `"}`, `did you mean "patch"`},
		{"patch", `{"Mode":"patch","Patch":"` + jsonEsc(v4aOut) + `"}`, `did you mean "mode"`},
		{"patch", `{"mode":"patch","patch":"x","patch":"` + jsonEsc(v4aOut) + `"}`, `given twice`},
		{"patch", `{"mode":"replace","path":"a","old_string":"a","new_string":"b","Path":"/etc/passwd"}`, `did you mean "path"`},
		{"write_file", `{"Path":"/etc/x","content":"x"}`, `did you mean "path"`},
		{"terminal", `{"Command":"rm -rf /"}`, `did you mean "command"`},
		{"terminal", `{"command":"ls","cmd":"rm -rf /"}`, `unknown argument "cmd"`},
		{"process", `{"Action":"kill","id":"proc_1"}`, `did you mean "action"`},
		{"terminal", `{"command":""}`, `"command" is required`},
	}
	for _, mode := range []ApprovalMode{ApprovalAsk, ApprovalAutoEdit, ApprovalReadOnly, ApprovalYolo} {
		for _, c := range cases {
			rp := &recordingPrompt{d: ApprovalDecision{Allow: true, Scope: ScopeSession}}
			a := NewApprover(mode, rp.prompt)
			a.Cwd = t.TempDir()
			ok, denial := a.Check(context.Background(), c.tool, c.args)
			if ok || !denial.IsError || !strings.Contains(denial.Output, c.want) || rp.count() != 0 {
				t.Errorf("%s %s %s: allowed=%v asked=%d %q", mode, c.tool, c.args, ok, rp.count(), denial.Output)
			}
			// The tool gives the same answer.
			res := NewRegistry(Builtins()...).Call(context.Background(), &Env{Cwd: a.Cwd}, c.tool, c.args)
			if !res.IsError || res.Output != denial.Output {
				t.Errorf("%s %s: tool says %q, approver %q", c.tool, c.args, res.Output, denial.Output)
			}
		}
	}
}

func jsonEsc(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}

// TestApprovalV4AOutsideAsks: Add, Delete and Move to of absolute paths
// ask in auto-edit, and the request names the paths as the tool resolves
// them.
func TestApprovalV4AOutsideAsks(t *testing.T) {
	cwd := t.TempDir()
	for _, body := range []string{
		"*** Add File: /tmp/talaria-add\n+x",
		"*** Delete File: /etc/hosts",
		"*** Update File: a.txt\n*** Move to: /tmp/talaria-moved\n@@\n-a\n+b",
	} {
		rp := &recordingPrompt{d: ApprovalDecision{Allow: false}}
		a := NewApprover(ApprovalAutoEdit, rp.prompt)
		a.Cwd = cwd
		args := `{"mode":"patch","patch":"` + jsonEsc("*** Begin Patch\n"+body+"\n*** End Patch") + `"}`
		if ok, _ := a.Check(context.Background(), "patch", args); ok || rp.count() != 1 {
			t.Fatalf("%q: allowed=%v asked=%d", body, ok, rp.count())
		}
		r := rp.reqs[0]
		if !r.NoSessionScope || len(r.Paths) == 0 || !filepath.IsAbs(r.Paths[len(r.Paths)-1]) || strings.HasPrefix(r.Paths[len(r.Paths)-1], cwd) {
			t.Errorf("%q: request %+v", body, r)
		}
	}
}

// TestApprovalProtectedPaths: writes under any .git directory and under
// $TALARIA_HOME ask in every mode but yolo, also through a symlink and as
// a V4A Move to target, and are never allowed for the session.
func TestApprovalProtectedPaths(t *testing.T) {
	cwd := t.TempDir()
	home := filepath.Join(cwd, ".talaria")
	for _, d := range []string{".git/hooks", "vendor/lib/.git", "src", ".talaria"} {
		if err := os.MkdirAll(filepath.Join(cwd, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(cwd, ".git"), filepath.Join(cwd, "src", "meta")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(home, filepath.Join(cwd, "cfg")); err != nil {
		t.Fatal(err)
	}
	calls := []struct{ tool, args string }{
		{"write_file", `{"path":".git/config","content":"[core]\n\tfsmonitor = evil\n"}`},
		{"write_file", `{"path":".git/hooks/x","content":"#!/bin/sh\n"}`},
		{"write_file", `{"path":"vendor/lib/.git/config","content":"x"}`},
		{"write_file", `{"path":"src/meta/config","content":"x"}`},
		{"write_file", `{"path":".talaria/config.yaml","content":"approvals: yolo\n"}`},
		{"write_file", `{"path":"cfg/config.yaml","content":"approvals: yolo\n"}`},
		{"patch", `{"path":".git/config","old_string":"a","new_string":"b"}`},
		{"patch", `{"mode":"patch","patch":"` + jsonEsc("*** Begin Patch\n*** Update File: src/a.go\n*** Move to: .git/hooks/pre-commit\n@@\n-a\n+b\n*** End Patch") + `"}`},
		{"patch", `{"mode":"patch","patch":"` + jsonEsc("*** Begin Patch\n*** Add File: .GIT/config\n+x\n*** End Patch") + `"}`},
	}
	for _, mode := range []ApprovalMode{ApprovalAsk, ApprovalAutoEdit, ApprovalYolo} {
		for _, c := range calls {
			rp := &recordingPrompt{d: ApprovalDecision{Allow: true, Scope: ScopeSession}}
			a := NewApprover(mode, rp.prompt)
			a.Cwd, a.Home = cwd, home
			for range 2 { // a session approval does not stick
				ok, _ := a.Check(context.Background(), c.tool, c.args)
				if !ok {
					t.Fatalf("%s %s: denied", mode, c.args)
				}
			}
			want := 2
			if mode == ApprovalYolo {
				want = 0
			}
			if rp.count() != want {
				t.Errorf("%s %s: asked %d times, want %d", mode, c.args, rp.count(), want)
				continue
			}
			if want > 0 && (!rp.reqs[0].Protected || !rp.reqs[0].NoSessionScope || !strings.Contains(rp.reqs[0].Summary, "[protected: ")) {
				t.Errorf("%s: request %+v", c.args, rp.reqs[0])
			}
		}
	}
	// A plain file inside the tree is still an auto-edit.
	a := NewApprover(ApprovalAutoEdit, nil)
	a.Cwd, a.Home = cwd, home
	if ok, d := a.Check(context.Background(), "write_file", `{"path":"src/git/config.go","content":"x"}`); !ok {
		t.Errorf("src/git/config.go: %s", d.Output)
	}
	// Headless, a protected edit is refused with a way out.
	if ok, d := a.Check(context.Background(), "write_file", `{"path":".git/config","content":"x"}`); ok || !strings.Contains(d.Output, "protected") {
		t.Errorf("headless .git/config: %v %q", ok, d.Output)
	}
}

// TestApprovalReadOnlyMode: the plan mode refuses writes, commands and
// tools that are not read-only, says the session is read-only, and asks
// nobody; reads still run.
func TestApprovalReadOnlyMode(t *testing.T) {
	reg := NewRegistry(append(Builtins(), fakeTool{"srv__read", true}, fakeTool{"srv__write", false})...)
	rp := &recordingPrompt{d: ApprovalDecision{Allow: true}}
	a := NewApprover(ApprovalReadOnly, rp.prompt)
	a.Tools, a.Cwd, a.Sandboxed = reg, t.TempDir(), true
	for _, c := range []struct{ tool, args string }{
		{"write_file", `{"path":"a","content":"x"}`},
		{"patch", `{"path":"a","old_string":"a","new_string":"b"}`},
		{"terminal", `{"command":"ls"}`},
		{"process", `{"action":"kill","id":"proc_1"}`},
		{"srv__write", `{}`},
	} {
		ok, d := a.Check(context.Background(), c.tool, c.args)
		if ok || !strings.Contains(d.Output, "the session is read-only") {
			t.Errorf("%s: %v %q", c.tool, ok, d.Output)
		}
	}
	for _, c := range []struct{ tool, args string }{
		{"read_file", `{"path":"a"}`}, {"process", `{"action":"list"}`}, {"search_files", `{"pattern":"x"}`},
	} {
		if ok, d := a.Check(context.Background(), c.tool, c.args); !ok {
			t.Errorf("%s refused: %s", c.tool, d.Output)
		}
	}
	if rp.count() != 0 {
		t.Errorf("asked %d times", rp.count())
	}
	// The server's read-only claim runs without asking, as in auto-edit
	// (issue 24: read-only refused what auto-edit allowed).
	if ok, d := a.Check(context.Background(), "srv__read", `{}`); !ok || rp.count() != 0 {
		t.Errorf("srv__read: %v %q, asked %d", ok, d.Output, rp.count())
	}
}

// TestApprovalSandboxedCommands: inside the sandbox a known-safe command
// runs without asking in ask and auto-edit; a destructive one, and one not
// known safe (a test runner runs the project's code), still ask; without
// the sandbox the known-safe ls runs unasked too (KnownSafeUnsandboxed),
// the others ask.
func TestApprovalSandboxedCommands(t *testing.T) {
	for _, sandboxed := range []bool{false, true} {
		for _, mode := range []ApprovalMode{ApprovalAsk, ApprovalAutoEdit} {
			rp := &recordingPrompt{d: ApprovalDecision{Allow: true}}
			a := NewApprover(mode, rp.prompt)
			a.Sandboxed, a.Cwd = sandboxed, t.TempDir()
			a.Check(context.Background(), "terminal", `{"command":"ls -la"}`)
			a.Check(context.Background(), "terminal", `{"command":"go test ./..."}`)
			a.Check(context.Background(), "terminal", `{"command":"rm -rf build"}`)
			if rp.count() != 2 {
				t.Errorf("sandboxed=%v %s: asked %d, want 2", sandboxed, mode, rp.count())
			}
		}
	}
}

// TestApprovalAllowListHoldsOnlyParsedCommands: an unparsable command
// (unclosed quote) is never allowed for the session.
func TestApprovalAllowListHoldsOnlyParsedCommands(t *testing.T) {
	rp := &recordingPrompt{d: ApprovalDecision{Allow: true, Scope: ScopeSession}}
	a := NewApprover(ApprovalAsk, rp.prompt)
	a.Check(context.Background(), "terminal", `{"command":"echo 'unclosed"}`)
	a.Check(context.Background(), "terminal", `{"command":"make"}`)
	got := a.SessionAllowed()
	if len(got) != 1 || got[0] != "terminal: make" || !rp.reqs[0].NoSessionScope {
		t.Errorf("allow-list %q, first request %+v", got, rp.reqs[0])
	}
}

// fakeSandbox stands in for tools/sandbox: it marks the commands it wraps
// with SANDBOXED=1, and says it stopped what failed with "Permission
// denied".
type fakeSandbox struct{}

func (fakeSandbox) Wrap(argv []string, dir string) ([]string, error) {
	return append([]string{"env", "SANDBOXED=1"}, argv...), nil
}
func (fakeSandbox) Mode() string  { return "workspace-write" }
func (fakeSandbox) Network() bool { return false }
func (fakeSandbox) StoppedHint(out string) string {
	if strings.Contains(out, "Permission denied") {
		return "the sandbox stopped it"
	}
	return ""
}

// TestSandboxEscalation: a command the sandbox stopped is offered to the
// user to run once outside it; approved, it runs unsandboxed; without a
// user it is not rerun and the result says how to allow it.
func TestSandboxEscalation(t *testing.T) {
	dir := t.TempDir()
	script := `if [ -n "$SANDBOXED" ]; then echo "x: Permission denied" >&2; exit 1; fi; echo outside-run`
	env := &Env{Cwd: dir, Commands: CommandPolicy{Environ: []string{"PATH=" + os.Getenv("PATH")}, Sandbox: fakeSandbox{}}}
	res := TerminalTool{}.Run(context.Background(), env, []byte(`{"command":`+strconvQuote(script)+`}`))
	if !res.IsError || !strings.Contains(res.Output, "the sandbox stopped it") || !strings.Contains(res.Output, "No user is here") {
		t.Fatalf("headless: %q", res.Output)
	}
	rp := &recordingPrompt{d: ApprovalDecision{Allow: true}}
	a := NewApprover(ApprovalAsk, rp.prompt)
	env.Escalate = a.Escalate
	res = TerminalTool{}.Run(context.Background(), env, []byte(`{"command":`+strconvQuote(script)+`}`))
	if rp.count() != 1 || !rp.reqs[0].OutsideSandbox || !strings.Contains(rp.reqs[0].Summary, "outside the sandbox") {
		t.Fatalf("requests %+v", rp.reqs)
	}
	if !strings.Contains(res.Output, "approved running it once outside the sandbox") || !strings.Contains(res.Output, "outside-run") {
		t.Fatalf("escalated: %q", res.Output)
	}
	// Read-only mode never escalates.
	a.SetMode(ApprovalReadOnly)
	if a.Escalate(context.Background(), "terminal", "x") {
		t.Error("read-only escalated")
	}
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }
