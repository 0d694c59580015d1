package app_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	pt "talaria/providers/providertest"
)

// extProject writes a project (a git root) with extension files in Claude
// Code's formats, each at its relative path.
func extProject(t *testing.T, files map[string]string) string {
	t.Helper()
	cwd := t.TempDir()
	files[".git/HEAD"] = "ref: refs/heads/main\n"
	for rel, body := range files {
		p := filepath.Join(cwd, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return cwd
}

// messages returns a decoded request's messages.
func messages(t *testing.T, req map[string]any) []map[string]any {
	t.Helper()
	raw, _ := req["messages"].([]any)
	var out []map[string]any
	for _, m := range raw {
		out = append(out, m.(map[string]any))
	}
	if len(out) == 0 {
		t.Fatalf("request without messages: %v", req)
	}
	return out
}

// lastUser returns the content of a request's last user message.
func lastUser(t *testing.T, req map[string]any) string {
	t.Helper()
	ms := messages(t, req)
	for i := len(ms) - 1; i >= 0; i-- {
		if ms[i]["role"] == "user" {
			s, _ := ms[i]["content"].(string)
			return s
		}
	}
	t.Fatalf("no user message: %v", ms)
	return ""
}

// systemPrompt returns a request's system message.
func systemPrompt(t *testing.T, req map[string]any) string {
	t.Helper()
	ms := messages(t, req)
	if ms[0]["role"] != "system" {
		t.Fatalf("first message is not the system prompt: %v", ms[0])
	}
	return ms[0]["content"].(string)
}

// toolNames returns the names of the tools a request offers, sorted.
func toolNames(req map[string]any) []string {
	var out []string
	ts, _ := req["tools"].([]any)
	for _, t := range ts {
		fn, _ := t.(map[string]any)["function"].(map[string]any)
		out = append(out, fn["name"].(string))
	}
	slices.Sort(out)
	return out
}

const reviewCommand = `---
description: Review a file for bugs
argument-hint: FILE [FOCUS]
---
Review $0 carefully (focus: $1).
Everything asked: $ARGUMENTS
`

// TestHeadlessCustomCommandExpands: -p "/review main.go errors" sends the
// command's body with $0, $1 and $ARGUMENTS filled in, not the slash text;
// a subfolder's command is /a:b; a command named like a built-in (/help)
// is ignored with a notice and the text goes as typed; an unknown /NAME is
// sent as typed.
func TestHeadlessCustomCommandExpands(t *testing.T) {
	home := t.TempDir()
	cwd := extProject(t, map[string]string{
		".claude/commands/review.md":     reviewCommand,
		".claude/commands/git/commit.md": "Write a commit message for $ARGUMENTS.\n",
		".claude/commands/help.md":       "SHADOWED help\n",
	})
	srv := pt.New(t)
	srv.Push(pt.Text("reviewed"), pt.Text("committed"), pt.Text("helped"), pt.Text("unknown"))
	r := talaria(t, home, cwd, srv, "", "-p", "/review main.go errors")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "reviewed" {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "/help is a built-in command") || !strings.Contains(r.stderr, "help.md") {
		t.Fatalf("no notice for the command shadowing a built-in: %s", r.stderr)
	}
	if got, want := lastUser(t, srv.Requests()[0]), "Review main.go carefully (focus: errors).\nEverything asked: main.go errors"; got != want {
		t.Fatalf("the model got %q, want %q", got, want)
	}
	if r := talaria(t, home, cwd, srv, "", "-p", "/git:commit the parser fix"); r.code != 0 {
		t.Fatalf("exit %d %s", r.code, r.stderr)
	}
	if got := lastUser(t, srv.Requests()[1]); got != "Write a commit message for the parser fix." {
		t.Fatalf("/git:commit: the model got %q", got)
	}
	if r := talaria(t, home, cwd, srv, "", "-p", "/help me"); r.code != 0 {
		t.Fatalf("exit %d %s", r.code, r.stderr)
	}
	if got := lastUser(t, srv.Requests()[2]); got != "/help me" {
		t.Fatalf("a custom /help shadowed the built-in: the model got %q", got)
	}
	if r := talaria(t, home, cwd, srv, "", "-p", "/nosuch thing"); r.code != 0 {
		t.Fatalf("exit %d %s", r.code, r.stderr)
	}
	if got := lastUser(t, srv.Requests()[3]); got != "/nosuch thing" {
		t.Fatalf("an unknown /NAME is sent as typed: the model got %q", got)
	}
}

// TestSkillsInSystemPromptStableOnResume: two skills (.claude/skills and
// .agents/skills) are listed in the first request's system prompt with
// name, description and SKILL.md path; a skill added before -c is not in
// the resumed session's prompt, which is byte for byte the first one; a
// new session lists it; /NAME runs a skill's body.
func TestSkillsInSystemPromptStableOnResume(t *testing.T) {
	home := t.TempDir()
	cwd := extProject(t, map[string]string{
		".claude/skills/pdf-forms/SKILL.md":        "---\nname: pdf-forms\ndescription: Fill in PDF forms with the bundled script\n---\nRun scripts/fill.py on the form.\n",
		".claude/skills/pdf-forms/scripts/fill.py": "print('fill')\n",
		".agents/skills/release/SKILL.md":          "---\nname: release\ndescription: \"Cut a release: tag, changelog, push\"\n---\nTag the release.\n",
	})
	srv := pt.New(t)
	srv.Push(pt.Text("one"), pt.Text("two"), pt.Text("three"), pt.Text("four"))
	if r := talaria(t, home, cwd, srv, "", "-p", "hello"); r.code != 0 {
		t.Fatalf("exit %d %s", r.code, r.stderr)
	}
	first := systemPrompt(t, srv.Requests()[0])
	for _, want := range []string{
		"- pdf-forms: Fill in PDF forms with the bundled script (" + filepath.Join(cwd, ".claude/skills/pdf-forms/SKILL.md") + ")",
		"- release: Cut a release: tag, changelog, push (" + filepath.Join(cwd, ".agents/skills/release/SKILL.md") + ")",
	} {
		if !strings.Contains(first, want) {
			t.Fatalf("the system prompt lacks %q:\n%s", want, first)
		}
	}
	if i, j := strings.Index(first, "\n# Skills\n"), strings.LastIndex(first, "\nModel: "); i < 0 || j < i || !strings.HasPrefix(first[strings.LastIndex(first, "\n\n"):], "\n\nModel: ") {
		t.Fatalf("the skills must come before the closing Model:/Provider: lines:\n%s", first)
	}
	// Added mid-session: the resumed session keeps its prompt.
	p := filepath.Join(cwd, ".claude/skills/later/SKILL.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("---\nname: later\ndescription: Added later\n---\nbody\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := talaria(t, home, cwd, srv, "", "-c", "-p", "again"); r.code != 0 {
		t.Fatalf("exit %d %s", r.code, r.stderr)
	}
	if second := systemPrompt(t, srv.Requests()[1]); second != first {
		t.Fatalf("the system prompt changed on resume:\n%s\n---\n%s", first, second)
	}
	if r := talaria(t, home, cwd, srv, "", "-p", "fresh"); r.code != 0 {
		t.Fatalf("exit %d %s", r.code, r.stderr)
	}
	if third := systemPrompt(t, srv.Requests()[2]); !strings.Contains(third, "- later: Added later") {
		t.Fatalf("a new session must list the skill added since:\n%s", third)
	}
	if r := talaria(t, home, cwd, srv, "", "-p", "/release v1.2"); r.code != 0 {
		t.Fatalf("exit %d %s", r.code, r.stderr)
	}
	if got := lastUser(t, srv.Requests()[3]); got != "Tag the release.\n\nARGUMENTS: v1.2" {
		t.Fatalf("/release: the model got %q", got)
	}
}

// TestDelegateToAgentNarrowsTools: an agent with `tools: Read, Grep` and a
// model runs as a child whose request offers read_file and search_files
// only, with the agent's body as its system prompt and its model; the
// parent's delegate_task description lists the agent.
func TestDelegateToAgentNarrowsTools(t *testing.T) {
	home := t.TempDir()
	cwd := extProject(t, map[string]string{
		".claude/agents/reader.md": "---\nname: reader\ndescription: Reads code and reports what it found\ntools: Read, Grep\nmodel: reader-model-1\ncolor: blue\n---\nYou are a careful reader. Never change a file.\n",
	})
	srv := pt.New(t)
	srv.Push(
		pt.ToolCalls(pt.Call{Name: "delegate_task", Args: `{"goal":"find the parser","agent":"reader"}`}),
		pt.Text("Child: the parser is in parse.go."),
		pt.Text("The reader says parse.go."),
	)
	r := talaria(t, home, cwd, srv, "", "-p", "where is the parser?", "--yolo")
	if r.code != 0 || !strings.Contains(r.stdout, "parse.go") {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	if !strings.Contains(srv.RawRequests()[0], `- reader: Reads code and reports what it found`) {
		t.Fatalf("delegate_task's description does not list the agent: %s", srv.RawRequests()[0])
	}
	child := reqs[1]
	if got := toolNames(child); !slices.Equal(got, []string{"read_file", "search_files"}) {
		t.Fatalf("the child offers %v, want read_file and search_files only", got)
	}
	if sys := systemPrompt(t, child); !strings.HasPrefix(sys, "You are a careful reader. Never change a file.\n\n") {
		t.Fatalf("the child's system prompt is not the agent's body:\n%s", sys)
	}
	if child["model"] != "reader-model-1" || reqs[0]["model"] == "reader-model-1" {
		t.Fatalf("models: parent %v, child %v", reqs[0]["model"], child["model"])
	}
	if got := lastUser(t, child); !strings.Contains(got, "find the parser") {
		t.Fatalf("child input: %q", got)
	}
}

// TestHomeSkillReadWithReadFile: a skill under $TALARIA_HOME is listed
// with its path, and read_file reads that SKILL.md in the default ask
// mode (a read, not a write of the protected home).
func TestHomeSkillReadWithReadFile(t *testing.T) {
	home := t.TempDir()
	cwd := extProject(t, map[string]string{})
	p := filepath.Join(home, ".talaria/skills/deploy/SKILL.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("---\nname: deploy\ndescription: Deploy the service\n---\nSTEP-ONE: build the image\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := pt.New(t)
	srv.Push(pt.ToolCalls(pt.Call{Name: "read_file", Args: `{"path":"` + p + `"}`}), pt.Text("done"))
	if r := talaria(t, home, cwd, srv, "", "-p", "deploy it"); r.code != 0 {
		t.Fatalf("exit %d %s", r.code, r.stderr)
	}
	if sys := systemPrompt(t, srv.Requests()[0]); !strings.Contains(sys, "- deploy: Deploy the service ("+p+")") {
		t.Fatalf("home skill not listed:\n%s", sys)
	}
	if !strings.Contains(srv.RawRequests()[1], "STEP-ONE: build the image") {
		t.Fatalf("read_file did not return the SKILL.md: %s", srv.RawRequests()[1])
	}
}

// TestAgentKeepsParentApprovals: an agent that asks for
// permissionMode: bypassPermissions (a Claude Code key, ignored) still
// asks through the parent's approvals: headless ask mode denies its
// write_file, and the file is not written.
func TestAgentKeepsParentApprovals(t *testing.T) {
	home := t.TempDir()
	cwd := extProject(t, map[string]string{
		".claude/agents/writer.md": "---\nname: writer\ndescription: Writes files\ntools: Write\npermissionMode: bypassPermissions\n---\nWrite what you are asked to.\n",
	})
	srv := pt.New(t)
	srv.Push(
		pt.ToolCalls(pt.Call{Name: "delegate_task", Args: `{"goal":"write x.txt","agent":"writer"}`}),
		pt.ToolCalls(pt.Call{Name: "write_file", Args: `{"path":"x.txt","content":"x"}`}),
		pt.Text("could not write"),
		pt.Text("the writer could not write"),
	)
	r := talaria(t, home, cwd, srv, "", "-p", "delegate the write")
	if r.code != 0 {
		t.Fatalf("exit %d %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(cwd, "x.txt")); err == nil {
		t.Fatal("the agent's write ran without approval: the child's mode is looser than its parent's")
	}
	if got := toolNames(srv.Requests()[1]); !slices.Equal(got, []string{"write_file"}) {
		t.Fatalf("child tools %v", got)
	}
}

// TestHeadlessCommandModel: a command with model: in its front matter
// runs its -p turn on that model (same provider); the session keeps its
// own model, so -c goes back to it.
func TestHeadlessCommandModel(t *testing.T) {
	home := t.TempDir()
	cwd := extProject(t, map[string]string{
		".claude/commands/quick.md": "---\ndescription: A quick answer\nmodel: small-model-2\n---\nAnswer in one line: $ARGUMENTS\n",
	})
	srv := pt.New(t)
	srv.Push(pt.Text("one line"), pt.Text("back"))
	r := talaria(t, home, cwd, srv, "", "-p", "/quick what is Go")
	if r.code != 0 || !strings.Contains(r.stderr, "/quick runs on model small-model-2") {
		t.Fatalf("exit %d %s", r.code, r.stderr)
	}
	reqs := srv.Requests()
	if reqs[0]["model"] != "small-model-2" || lastUser(t, reqs[0]) != "Answer in one line: what is Go" {
		t.Fatalf("model %v, input %q", reqs[0]["model"], lastUser(t, reqs[0]))
	}
	if r := talaria(t, home, cwd, srv, "", "-c", "-p", "and now?"); r.code != 0 {
		t.Fatalf("exit %d %s", r.code, r.stderr)
	}
	if m := srv.Requests()[1]["model"]; m == "small-model-2" {
		t.Fatalf("the command's model stuck to the session: %v", m)
	}
}

// TestHeadlessCommandInlinesFiles: @path in a command's body (or in its
// arguments) brings the project file's content to the model; an @path
// outside the project is not read.
func TestHeadlessCommandInlinesFiles(t *testing.T) {
	home := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("OUTSIDE-SECRET"), 0o644); err != nil {
		t.Fatal(err)
	}
	cwd := extProject(t, map[string]string{
		".claude/commands/explain.md": "Explain $ARGUMENTS using @docs/style.md\n",
		"docs/style.md":               "STYLE-GUIDE-TEXT\n",
		"main.go":                     "package main // MAIN-GO\n",
	})
	srv := pt.New(t)
	srv.Push(pt.Text("explained"))
	if r := talaria(t, home, cwd, srv, "", "-p", "/explain @main.go @"+outside); r.code != 0 {
		t.Fatalf("exit %d %s", r.code, r.stderr)
	}
	got := lastUser(t, srv.Requests()[0])
	for _, want := range []string{"STYLE-GUIDE-TEXT", "MAIN-GO"} {
		if !strings.Contains(got, want) {
			t.Fatalf("%s not inlined: %q", want, got)
		}
	}
	if strings.Contains(got, "OUTSIDE-SECRET") {
		t.Fatalf("a file outside the project was inlined: %q", got)
	}
}
