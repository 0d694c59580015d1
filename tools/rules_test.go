package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseRuleErrors(t *testing.T) {
	bad := map[string]string{
		"":                         "empty rule",
		"Bash(":                    "must end with )",
		"Bash)":                    "without (",
		"Bash()":                   "empty specifier",
		"Ba sh":                    "not a tool name",
		"Bash(git *diff)":          "wildcard",
		"Bash(git diff && rm:*)":   "plain words",
		"Bash(FOO=1 make)":         "plain words",
		"Bash(echo $HOME:*)":       "expansion",
		"Read(!src/**)":            "negated",
		"Read([)":                  "valid glob",
		"WebFetch(example.com)":    "domain:HOST",
		"WebFetch(domain:a/b)":     "host name",
		"todo(x)":                  "takes no specifier",
		"(x)":                      "no tool name",
		"Bash(git diff > out.txt)": "plain words",
	}
	for rule, want := range bad {
		_, err := ParseRule(rule)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseRule(%q) = %v, want an error with %q", rule, err, want)
		}
	}
	_, err := ParseRules([]string{"Bash(ls)", "Bash(x"})
	if err == nil || !strings.Contains(err.Error(), "rule 1") || !strings.Contains(err.Error(), `"Bash(x"`) {
		t.Errorf("ParseRules error does not name the rule: %v", err)
	}
	for _, ok := range []string{"Bash", "terminal", "Bash(*)", "Bash(npm run test:*)", "terminal(git diff:*)", "Bash(ls)",
		"Bash(ls *)", `Bash(git commit -m "wip":*)`, "Read(./src/**)", "Edit(docs/**)", "Write(//tmp/x/**)",
		"Read(~/.ssh/**)", "WebFetch(domain:example.com)", "WebFetch(domain:*.example.com)", "mcp__srv__tool",
		"mcp__srv", "srv__tool", "srv__*", "Edit(*.md)", "Read(/)"} {
		if _, err := ParseRule(ok); err != nil {
			t.Errorf("ParseRule(%q): %v", ok, err)
		}
	}
}

// ruleCase is one call judged against one rule.
type ruleCase struct {
	rule, tool, args string
	allow, deny      bool // matches as an allow rule; as a deny (or ask) rule
}

func TestRuleMatching(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"src/a.go": "a", "docs/x.md": "x", "other/y.md": "y", ".env": "k"})
	if err := os.Symlink(filepath.Join(root, "other"), filepath.Join(root, "docs", "out")); err != nil {
		t.Fatal(err)
	}
	cmd := func(c string) string { b, _ := json.Marshal(map[string]string{"command": c}); return string(b) }
	path := func(p string) string {
		b, _ := json.Marshal(map[string]string{"path": p, "content": "z"})
		return string(b)
	}
	rpath := func(p string) string { b, _ := json.Marshal(map[string]string{"path": p}); return string(b) }
	cases := []ruleCase{
		// Prefix by words.
		{"Bash(npm run test:*)", "terminal", cmd("npm run test"), true, true},
		{"Bash(npm run test:*)", "terminal", cmd("npm run test -- --watch"), true, true},
		{"Bash(npm run test:*)", "terminal", cmd("npm run testx"), false, false},
		{"Bash(npm run test:*)", "terminal", cmd("npm run"), false, false},
		{"terminal(git diff:*)", "terminal", cmd("git diff HEAD"), true, true},
		{"Bash(git diff *)", "terminal", cmd("git  'diff'  x"), true, true},
		// Exact.
		{"Bash(ls)", "terminal", cmd("ls"), true, true},
		{"Bash(ls)", "terminal", cmd("ls -la"), false, false},
		// Compound: every part must match an allow; any part a deny.
		{"Bash(git status:*)", "terminal", cmd("git status && git status -s"), true, true},
		{"Bash(git status:*)", "terminal", cmd("git status; rm -rf /"), false, true},
		{"Bash(git status:*)", "terminal", cmd("git status | sh"), false, true},
		{"Bash(git status:*)", "terminal", cmd("(git status) || { git status; }"), true, true},
		{"Bash(rm:*)", "terminal", cmd("ls && (cd x; rm -rf y)"), false, true},
		// What the parser cannot read: never an allow, always a deny.
		{"Bash(git status:*)", "terminal", cmd("git status $(rm -rf /)"), false, true},
		{"Bash(git status:*)", "terminal", cmd("git status > out"), false, true},
		{"Bash(git status:*)", "terminal", cmd("git status 2>&1 >/dev/null"), true, true},
		{"Bash(git status:*)", "terminal", cmd("GIT_DIR=x git status"), false, true},
		{"Bash(git status:*)", "terminal", cmd("git status 'unterminated"), false, true},
		{"Bash(git status:*)", "terminal", cmd("for x in a; do git status; done"), false, true},
		{"Bash(rm:*)", "terminal", cmd("$X -rf /"), false, true},
		{"Bash(rm:*)", "terminal", cmd("echo rm"), false, false},
		// Wrappers, shells, paths of programs: a deny sees through them.
		{"Bash(rm:*)", "terminal", cmd("sudo rm -rf /"), false, true},
		{"Bash(rm:*)", "terminal", cmd("timeout 5 /bin/rm x"), false, true},
		{"Bash(rm:*)", "terminal", cmd(`bash -c "ls; rm x"`), false, true},
		{"Bash(rm:*)", "terminal", cmd(`sh -c "$CMD"`), false, true},
		{"Bash(rm:*)", "terminal", cmd(`eval rm x`), false, true},
		{"Bash(rm:*)", "terminal", cmd(`bash build.sh`), false, false},
		{"Bash(rm:*)", "terminal", cmd(`bash -c`), false, false},
		{"Bash(rm:*)", "terminal", cmd(`find . | xargs rm`), false, true},
		{"Bash(git push:*)", "terminal", cmd(`git commit -m "no push"`), false, false},
		// The bare tool covers every call; others do not.
		{"Bash", "terminal", cmd("anything | at all"), true, true},
		{"Bash(*)", "terminal", cmd("x"), true, true},
		{"Bash", "write_file", path("a"), false, false},
		// Globs from the project root.
		{"Read(./src/**)", "read_file", rpath("src/a.go"), true, true},
		{"Read(./src/**)", "read_file", rpath("docs/x.md"), false, false},
		{"Read(./src/**)", "search_files", `{"pattern":"x","path":"src"}`, false, false},
		{"Read(src)", "search_files", `{"pattern":"x","path":"src"}`, true, true},
		{"Read(.env)", "read_file", rpath(".env"), true, true},
		{"Read(.env)", "read_file", rpath("src/.env"), true, true},
		{"Read(./.env)", "read_file", rpath("src/.env"), false, false},
		{"Edit(docs/**)", "write_file", path("docs/new.md"), true, true},
		{"Edit(docs/**)", "patch", `{"path":"docs/x.md","old_string":"x","new_string":"y"}`, true, true},
		{"Edit(docs/**)", "write_file", path("src/a.go"), false, false},
		{"Edit(docs/**)", "write_file", path("../elsewhere/docs/a"), false, false},
		// A symlink out of the glob: allow needs both forms, deny either.
		{"Edit(docs/**)", "write_file", path("docs/out/y.md"), false, true},
		{"Edit(other/**)", "write_file", path("docs/out/y.md"), false, true},
		{"Write(docs/**)", "write_file", path("docs/new.md"), true, true},
		{"Write(docs/**)", "patch", `{"path":"docs/x.md","old_string":"x","new_string":"y"}`, false, false},
		{"Edit(*.md)", "write_file", path("docs/deep/n.md"), true, true},
		{"Write(//tmp/**)", "write_file", path("/tmp/x"), true, true},
		{"write_file(/**)", "write_file", path("src/new.go"), true, true},
		{"write_file(/**)", "write_file", path("/etc/passwd"), false, false},
		// Domains.
		{"WebFetch(domain:example.com)", "web_fetch", `{"url":"https://example.com/a"}`, true, true},
		{"WebFetch(domain:example.com)", "web_fetch", `{"url":"https://evil.com/?example.com"}`, false, false},
		{"WebFetch(domain:example.com)", "web_fetch", `{"url":"https://a.example.com/"}`, false, false},
		{"WebFetch(domain:*.example.com)", "web_fetch", `{"url":"http://a.example.com/"}`, true, true},
		{"WebFetch(domain:example.com)", "web_fetch", `{"url":"::bad"}`, false, true},
		// MCP names.
		{"mcp__srv__tool", "srv__tool", `{}`, true, true},
		{"mcp__srv", "srv__other", `{}`, true, true},
		{"srv__tool", "srv__tool2", `{}`, false, false},
	}
	for _, c := range cases {
		r, err := ParseRule(c.rule)
		if err != nil {
			t.Fatalf("%s: %v", c.rule, err)
		}
		a := NewApprover(ApprovalAsk, nil)
		a.Cwd, a.Rules = root, Rules{Allow: []Rule{r}}
		rc := a.ruleCallFor(c.tool, c.args)
		if got := r.matches(rc, sideAllow); got != c.allow {
			t.Errorf("allow %s on %s %s = %v, want %v", c.rule, c.tool, c.args, got, c.allow)
		}
		if got := r.matches(rc, sideDeny); got != c.deny {
			t.Errorf("deny %s on %s %s = %v, want %v", c.rule, c.tool, c.args, got, c.deny)
		}
	}
}

// decide runs one Check with a prompt that allows and says whether the
// call ran and whether the user was asked.
func decide(t *testing.T, a *Approver, tool, args string) (ran, asked bool) {
	t.Helper()
	n := 0
	if a.Prompt != nil {
		a.Prompt = func(context.Context, ApprovalRequest) (ApprovalDecision, error) {
			n++
			return ApprovalDecision{Allow: true}, nil
		}
	}
	ok, _ := a.Check(context.Background(), tool, args)
	return ok, n > 0
}

func mustRules(t *testing.T, allow, ask, deny []string) Rules {
	t.Helper()
	rs, err := ParsePermissions(allow, ask, deny)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func TestApproverRulesOrder(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{".git/config": "[core]\n", "a.txt": "a"})
	prompt := func(context.Context, ApprovalRequest) (ApprovalDecision, error) { return ApprovalDecision{}, nil }
	type want struct{ ran, asked bool }
	cases := []struct {
		name             string
		mode             ApprovalMode
		allow, ask, deny []string
		tool, args       string
		want             want
	}{
		{"allow runs unasked", ApprovalAsk, []string{"Bash(make test:*)"}, nil, nil, "terminal", `{"command":"make test -j4"}`, want{true, false}},
		{"no rule asks", ApprovalAsk, nil, nil, nil, "terminal", `{"command":"make test"}`, want{true, true}},
		{"ask beats allow", ApprovalAsk, []string{"Bash"}, []string{"Bash(git push:*)"}, nil, "terminal", `{"command":"git push"}`, want{true, true}},
		{"ask beats known safe", ApprovalAsk, nil, []string{"Bash(ls:*)"}, nil, "terminal", `{"command":"ls"}`, want{true, true}},
		{"deny beats allow", ApprovalAsk, []string{"Bash"}, nil, []string{"Bash(rm:*)"}, "terminal", `{"command":"rm x"}`, want{false, false}},
		{"deny beats ask", ApprovalAsk, nil, []string{"Bash"}, []string{"Bash(rm:*)"}, "terminal", `{"command":"rm x"}`, want{false, false}},
		{"deny under yolo", ApprovalYolo, nil, nil, []string{"Bash(rm:*)"}, "terminal", `{"command":"ls && rm x"}`, want{false, false}},
		{"deny of a read", ApprovalYolo, nil, nil, []string{"Read(.env)"}, "read_file", `{"path":".env"}`, want{false, false}},
		{"yolo skips ask rules", ApprovalYolo, nil, []string{"Bash"}, nil, "terminal", `{"command":"make"}`, want{true, false}},
		{"protected path not lifted", ApprovalAsk, []string{"Edit", "Write(/**)", "write_file"}, nil, nil, "write_file", `{"path":".git/config","content":"x"}`, want{true, true}},
		{"protected path not lifted in auto-edit", ApprovalAutoEdit, []string{"Edit(/**)"}, nil, nil, "write_file", `{"path":".git/hooks/pre-commit","content":"x"}`, want{true, true}},
		{"edit allowed by glob", ApprovalAsk, []string{"Edit(*.txt)"}, nil, nil, "write_file", `{"path":"a.txt","content":"x"}`, want{true, false}},
		{"read-only refuses an allowed write", ApprovalReadOnly, []string{"Edit"}, nil, nil, "write_file", `{"path":"a.txt","content":"x"}`, want{false, false}},
		{"read-only refuses an allowed command", ApprovalReadOnly, []string{"Bash"}, nil, nil, "terminal", `{"command":"make"}`, want{false, false}},
		{"allow of an mcp tool", ApprovalAsk, []string{"mcp__srv__write"}, nil, nil, "srv__write", `{}`, want{true, false}},
	}
	for _, c := range cases {
		reg := NewRegistry(append(Builtins(), fakeTool{"srv__write", false})...)
		a := NewApprover(c.mode, prompt)
		a.Cwd, a.Home, a.Tools, a.Rules = root, filepath.Join(root, ".talaria"), reg, mustRules(t, c.allow, c.ask, c.deny)
		ran, asked := decide(t, a, c.tool, c.args)
		if (want{ran, asked}) != c.want {
			t.Errorf("%s: ran=%v asked=%v, want %+v", c.name, ran, asked, c.want)
		}
	}
	// Headless: an allow rule runs the command, an ask rule's denial
	// names the rule, a deny names the deny rule.
	a := NewApprover(ApprovalAsk, nil)
	a.Cwd, a.Rules = root, mustRules(t, []string{"Bash(git status:*)"}, []string{"Bash(git log:*)"}, []string{"Bash(git push:*)"})
	if ok, _ := a.Check(context.Background(), "terminal", `{"command":"git status --short"}`); !ok {
		t.Error("headless: an allowed git status did not run")
	}
	ok, res := a.Check(context.Background(), "terminal", `{"command":"git log"}`)
	if ok || !strings.Contains(res.Output, "Bash(git log:*)") {
		t.Errorf("headless ask rule: ran=%v %q", ok, res.Output)
	}
	ok, res = a.Check(context.Background(), "terminal", `{"command":"git push"}`)
	if ok || !strings.Contains(res.Output, "Bash(git push:*)") || !strings.Contains(res.Output, "permissions.deny") {
		t.Errorf("headless deny rule: ran=%v %q", ok, res.Output)
	}
}

// TestKnownSafeOutsideSandbox: without any rule, read-only commands run
// unasked in the ask mode outside the sandbox; redirections that write,
// file-creating and network commands still ask.
func TestKnownSafeOutsideSandbox(t *testing.T) {
	root := t.TempDir()
	unasked := []string{"ls", "ls -la src", "cat a.txt | wc -l", "head -n 3 a.txt", "tail a.txt", "grep -rn x .",
		"rg foo", "find . -name '*.go'", "git status", "git log --oneline -3", "git diff HEAD", "git show HEAD",
		"git branch", "pwd", "which go", "ls 2>/dev/null", "ls 2>&1", "wc -l < a.txt"}
	asks := []string{"ls > out", "ls >> out", "cat a.txt > b.txt", "echo x > new.txt", "find . -delete", "find . -exec rm {} +",
		"touch x", "mkdir d", "echo x | tee new", "curl https://example.com", "wget x", "git ls-remote origin",
		"git remote show origin", "go list -m all", "git push", "cat < /dev/tcp/example.com/80", "make", "rm -rf x",
		"git -c core.pager=x log", "ls; make", "sh -c ls", "env tee x", "xargs touch", "timeout 5 mkdir d", "cat </dev/tcp"}
	for _, mode := range []ApprovalMode{ApprovalAsk, ApprovalAutoEdit} {
		for _, c := range unasked {
			a := NewApprover(mode, func(context.Context, ApprovalRequest) (ApprovalDecision, error) { return ApprovalDecision{}, nil })
			a.Cwd = root
			b, _ := json.Marshal(map[string]string{"command": c})
			if ran, asked := decide(t, a, "terminal", string(b)); !ran || asked {
				t.Errorf("%s %q: ran=%v asked=%v, want unasked", mode, c, ran, asked)
			}
		}
		for _, c := range asks {
			a := NewApprover(mode, func(context.Context, ApprovalRequest) (ApprovalDecision, error) { return ApprovalDecision{}, nil })
			a.Cwd = root
			b, _ := json.Marshal(map[string]string{"command": c})
			if _, asked := decide(t, a, "terminal", string(b)); !asked {
				t.Errorf("%s %q ran unasked", mode, c)
			}
		}
	}
}

func TestRememberScopes(t *testing.T) {
	root := t.TempDir()
	var saved []string
	var got ApprovalRequest
	answer := ApprovalDecision{}
	a := NewApprover(ApprovalAsk, func(_ context.Context, r ApprovalRequest) (ApprovalDecision, error) {
		got = r
		return answer, nil
	})
	a.Cwd = root
	a.SaveRule = func(r string) error { saved = append(saved, r); return nil }
	check := func(c string) (ran, asked bool) {
		got = ApprovalRequest{}
		b, _ := json.Marshal(map[string]string{"command": c})
		ok, _ := a.Check(context.Background(), "terminal", string(b))
		return ok, got.Tool != ""
	}
	answer = ApprovalDecision{Allow: true, Scope: ScopeSession, Remember: RememberPrefix, Save: true}
	if _, asked := check("npm run build --prod"); !asked {
		t.Fatal("not asked")
	}
	scopes := map[string]string{}
	for _, o := range got.Remember {
		scopes[o.Scope] = o.Rule
	}
	if scopes[RememberCommand] != "Bash(npm run build --prod)" || scopes[RememberPrefix] != "Bash(npm run build:*)" || scopes[RememberTool] != "terminal" {
		t.Fatalf("remember options: %+v", got.Remember)
	}
	if len(saved) != 1 || saved[0] != "Bash(npm run build:*)" {
		t.Fatalf("saved %v", saved)
	}
	if ran, asked := check("npm run build"); !ran || asked {
		t.Errorf("prefix not remembered: ran=%v asked=%v", ran, asked)
	}
	if _, asked := check("npm run build && make"); !asked {
		t.Error("a remembered prefix covered a compound with another command")
	}
	// The exact scope of a compound is for the session only.
	answer = ApprovalDecision{Allow: true, Scope: ScopeSession, Remember: RememberCommand}
	check("make a && make b")
	if ran, asked := check("make a && make b"); !ran || asked {
		t.Error("exact compound not remembered for the session")
	}
	if _, err := a.Remember(got, RememberCommand, true); err == nil {
		t.Error("a compound command saved as a rule")
	}
	// A destructive command offers nothing.
	answer = ApprovalDecision{Allow: true, Scope: ScopeSession, Remember: RememberTool}
	check("rm -rf build")
	if len(got.Remember) != 0 {
		t.Errorf("destructive command offers %+v", got.Remember)
	}
	if _, asked := check("git push"); !asked {
		t.Error("a destructive command's tool scope was remembered")
	}
	// The tool scope of write_file covers edits inside the project only.
	a2 := NewApprover(ApprovalAsk, func(_ context.Context, r ApprovalRequest) (ApprovalDecision, error) {
		got = r
		return ApprovalDecision{Allow: true, Scope: ScopeSession, Remember: RememberTool}, nil
	})
	a2.Cwd = root
	a2.Check(context.Background(), "write_file", `{"path":"x.txt","content":"x"}`)
	got = ApprovalRequest{}
	a2.Check(context.Background(), "write_file", `{"path":"y.txt","content":"x"}`)
	if got.Tool != "" {
		t.Error("write_file tool scope not remembered")
	}
	a2.Check(context.Background(), "write_file", `{"path":"/tmp/outside-rules-test","content":"x"}`)
	if got.Tool == "" {
		t.Error("write_file tool scope covered a write outside the project")
	}
}

func TestCommandPrefix(t *testing.T) {
	for in, want := range map[string]string{
		"git diff HEAD~1 -- x.go": "git diff", "ls -la src": "ls", "go test ./...": "go test",
		"npm run test": "npm run test", "docker compose up -d web": "docker compose up", "make": "make",
	} {
		words, _ := singlePlainCommand(in)
		if got := strings.Join(commandPrefix(words), " "); got != want {
			t.Errorf("prefix(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestProjectSettingsProtected: a project's settings file (where saved
// rules go) is a protected path: an allow rule, auto-edit or a session
// approval never lets the model edit it unasked.
func TestProjectSettingsProtected(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{".talaria/config.yaml", "sub/.TALARIA/Config.yml", ".claude/settings.json", ".claude/settings.local.json"} {
		for _, mode := range []ApprovalMode{ApprovalAsk, ApprovalAutoEdit} {
			a := NewApprover(mode, func(context.Context, ApprovalRequest) (ApprovalDecision, error) { return ApprovalDecision{}, nil })
			a.Cwd, a.Rules = root, mustRules(t, []string{"Edit", "write_file(/**)"}, nil, nil)
			b, _ := json.Marshal(map[string]string{"path": p, "content": "permissions: {allow: [Bash]}\n"})
			if _, asked := decide(t, a, "write_file", string(b)); !asked {
				t.Errorf("%s: write of %s not asked", mode, p)
			}
		}
	}
	if isProjectSettings("/x/.talaria/commands/config.yaml") || isProjectSettings("/x/config.yaml") {
		t.Error("not a settings file")
	}
}
