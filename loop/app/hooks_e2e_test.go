package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"talaria/loop/app"
	pt "talaria/providers/providertest"
	"talaria/tools"
)

// hookScript writes an executable bash script into dir and returns its
// path.
func hookScript(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/bash\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// userHooks writes the user's config.yaml with yaml (the hooks: key and
// anything else) under home.
func userHooks(t *testing.T, home, yaml string) {
	t.Helper()
	dir := filepath.Join(home, ".talaria")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
}

// hookEvents returns the hook.completed events of a --json run.
func hookEvents(t *testing.T, stdout string) []map[string]any {
	var out []map[string]any
	for _, e := range events(t, stdout) {
		if e["type"] == "hook.completed" {
			out = append(out, e)
		}
	}
	return out
}

// hookReqMessages returns request i's messages.
func hookReqMessages(t *testing.T, srv *pt.Server, i int) []map[string]any {
	t.Helper()
	reqs := srv.Requests()
	if i >= len(reqs) {
		t.Fatalf("only %d requests, want request %d", len(reqs), i+1)
	}
	var out []map[string]any
	for _, m := range reqs[i]["messages"].([]any) {
		out = append(out, m.(map[string]any))
	}
	return out
}

func lastOfRole(msgs []map[string]any, role string) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i]["role"] == role {
			s, _ := msgs[i]["content"].(string)
			return s
		}
	}
	return ""
}

// A PreToolUse hook that blocks rm: the command never runs (even under
// --yolo), the model's next request carries the hook's reason, and the
// hook got Claude Code's stdin fields, the scrubbed environment, the
// project variables and a transcript of the session.
func TestHookPreToolUseBlocksRm(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	victim := filepath.Join(cwd, "victim.txt")
	if err := os.WriteFile(victim, []byte("keep me\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	seen := filepath.Join(home, "seen")
	script := hookScript(t, home, "no-rm.sh", `input=$(cat)
printf '%s' "$input" > "`+seen+`.json"
env > "`+seen+`.env"
cp "$(printf '%s' "$input" | sed -n 's/.*"transcript_path":"\([^"]*\)".*/\1/p')" "`+seen+`.transcript"
case "$input" in
  *'"command":"rm '*) echo "rm is not allowed here: move files to ./trash instead" >&2; exit 2;;
esac
exit 0`)
	userHooks(t, home, "hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: "+script+"\n")
	srv := pt.New(t)
	srv.Push(pt.ToolCalls(pt.Call{ID: "call_rm", Name: "terminal", Args: `{"command":"rm -f victim.txt"}`}), pt.Text("I will not delete it."))
	r := talariaWith(t, home, cwd, srv, []string{"MY_SERVICE_TOKEN=tok-123456"}, "-p", "delete victim.txt", "--yolo", "--json")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(victim); err != nil {
		t.Fatalf("the blocked rm ran: %v", err)
	}
	tool := lastOfRole(hookReqMessages(t, srv, 1), "tool")
	if !strings.Contains(tool, "rm is not allowed here: move files to ./trash instead") || !strings.Contains(tool, "PreToolUse hook blocked") {
		t.Fatalf("the model did not read the hook's reason: %q", tool)
	}
	hs := hookEvents(t, r.stdout)
	if len(hs) != 1 || hs[0]["event"] != "PreToolUse" || hs[0]["decision"] != "block" || hs[0]["exit_code"] != 2.0 ||
		hs[0]["tool_call_id"] != "call_rm" || hs[0]["command"] != script {
		t.Fatalf("hook.completed: %v", hs)
	}
	var in map[string]any
	data, _ := os.ReadFile(seen + ".json")
	if err := json.Unmarshal(data, &in); err != nil {
		t.Fatalf("hook stdin %q: %v", data, err)
	}
	ti, _ := in["tool_input"].(map[string]any)
	if in["hook_event_name"] != "PreToolUse" || in["tool_name"] != "terminal" || in["tool_use_id"] != "call_rm" ||
		ti["command"] != "rm -f victim.txt" || in["cwd"] != cwd || in["session_id"] == "" || in["permission_mode"] != "yolo" {
		t.Fatalf("hook stdin: %v", in)
	}
	envText, _ := os.ReadFile(seen + ".env")
	if strings.Contains(string(envText), "tok-123456") {
		t.Fatal("the hook got a secret-looking variable: its environment is not scrubbed")
	}
	if !strings.Contains(string(envText), "TALARIA_PROJECT_DIR="+cwd) || !strings.Contains(string(envText), "CLAUDE_PROJECT_DIR="+cwd) {
		t.Fatalf("project variables missing:\n%s", envText)
	}
	tr, _ := os.ReadFile(seen + ".transcript")
	if !strings.Contains(string(tr), "delete victim.txt") {
		t.Fatalf("transcript_path did not hold the session: %q", tr)
	}
	if left, _ := filepath.Glob(filepath.Join(home, ".talaria", "tmp", "hook-transcript-*")); len(left) != 0 {
		t.Fatalf("transcripts left behind: %v", left)
	}
}

// A PostToolUse hook's additionalContext reaches the model with the
// result, marked; tool_response carries the output.
func TestHookPostToolUseContext(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(cwd, "a.txt"), []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := hookScript(t, home, "post.sh", `input=$(cat)
case "$input" in *alpha*) ;; *) echo "no tool_response" >&2; exit 1;; esac
echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"formatter: a.txt is clean"}}'`)
	userHooks(t, home, "hooks:\n  PostToolUse:\n    - matcher: Read|Grep\n      hooks:\n        - command: "+script+"\n")
	srv := pt.New(t)
	srv.Push(pt.ToolCalls(pt.Call{Name: "read_file", Args: `{"path":"a.txt"}`}), pt.Text("done"))
	r := talaria(t, home, cwd, srv, "", "-p", "read a.txt")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	tool := lastOfRole(hookReqMessages(t, srv, 1), "tool")
	if !strings.Contains(tool, "alpha") || !strings.Contains(tool, "[PostToolUse hook]\nformatter: a.txt is clean") {
		t.Fatalf("tool result: %q", tool)
	}
}

// A Stop hook that exits 2 once makes the turn go on for one more call
// (its reason reaches the model); with stop_hook_active it lets the turn
// end. One that always blocks cannot loop forever.
func TestHookStopContinuesOnce(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	script := hookScript(t, home, "stop.sh", `input=$(cat)
case "$input" in *'"stop_hook_active":true'*) exit 0;; esac
echo "run the tests before you stop" >&2
exit 2`)
	userHooks(t, home, "hooks:\n  Stop:\n    - hooks:\n        - command: "+script+"\n")
	srv := pt.New(t)
	srv.Push(pt.Text("done"), pt.Text("tests pass, done"))
	r := talaria(t, home, cwd, srv, "", "-p", "fix it")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "tests pass, done" {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Fatalf("%d requests, want 2", n)
	}
	if u := lastOfRole(hookReqMessages(t, srv, 1), "user"); !strings.Contains(u, "run the tests before you stop") {
		t.Fatalf("the stop reason did not reach the model: %q", u)
	}

	// Always blocking: bounded by the per-turn cap.
	home2 := t.TempDir()
	always := hookScript(t, home2, "always.sh", `cat >/dev/null; echo "never done" >&2; exit 2`)
	userHooks(t, home2, "hooks:\n  Stop:\n    - hooks:\n        - command: "+always+"\n")
	srv2 := pt.New(t)
	for range 20 {
		srv2.Push(pt.Text("done"))
	}
	r = talaria(t, home2, cwd, srv2, "", "-p", "fix it")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if n := len(srv2.Requests()); n != 9 { // the answer, then 8 continues
		t.Fatalf("%d requests, want 9 (MaxStopContinues+1)", n)
	}
	// And the iteration budget still applies.
	srv3 := pt.New(t)
	for range 20 {
		srv3.Push(pt.Text("done"))
	}
	r = talaria(t, home2, cwd, srv3, "", "-p", "fix it", "--max-iterations", "3")
	if n := len(srv3.Requests()); n > 5 { // 3 calls, then the summary call (and its retry)
		t.Fatalf("%d requests under --max-iterations 3: the budget did not bound the stop hook\n%s", n, r.stderr)
	}
}

// UserPromptSubmit: exit 2 drops the prompt (headless: exit 1, the
// reason on stderr, no request made); plain stdout is added as context.
func TestHookUserPromptSubmit(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	script := hookScript(t, home, "prompt.sh", `input=$(cat)
case "$input" in *password*) echo "prompts must not contain passwords" >&2; exit 2;; esac
echo "current branch: feature/zebra"`)
	userHooks(t, home, "hooks:\n  UserPromptSubmit:\n    - hooks:\n        - command: "+script+"\n")
	srv := pt.New(t)
	r := talaria(t, home, cwd, srv, "", "-p", "my password is hunter2")
	if r.code != app.ExitIncomplete || !strings.Contains(r.stderr, "prompts must not contain passwords") {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("a dropped prompt was sent: %d requests", n)
	}
	srv.Push(pt.Text("ok"))
	r = talaria(t, home, cwd, srv, "", "-p", "which branch?")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if u := lastOfRole(hookReqMessages(t, srv, 0), "user"); !strings.HasPrefix(u, "which branch?") || !strings.Contains(u, "current branch: feature/zebra") {
		t.Fatalf("user message: %q", u)
	}
}

// Hooks that time out, print 100 MB or exit 1 never stop the turn: the
// tool runs and each is reported failed (the printer is not: it exited 0).
func TestHookFailuresAreNonBlocking(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	slow := hookScript(t, home, "slow.sh", `cat >/dev/null; sleep 30`)
	loud := hookScript(t, home, "loud.sh", `cat >/dev/null; head -c 100000000 /dev/zero | tr '\0' x`)
	bad := hookScript(t, home, "bad.sh", `cat >/dev/null; echo boom >&2; exit 1`)
	userHooks(t, home, "hooks:\n  PreToolUse:\n    - matcher: write_file\n      hooks:\n        - command: "+slow+"\n          timeout: 1\n        - command: "+loud+"\n        - command: "+bad+"\n")
	srv := pt.New(t)
	srv.Push(pt.ToolCalls(pt.Call{Name: "write_file", Args: `{"path":"out.txt","content":"hi\n"}`}), pt.Text("written"))
	r := talaria(t, home, cwd, srv, "", "-p", "write it", "--yolo", "--json")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if data, err := os.ReadFile(filepath.Join(cwd, "out.txt")); err != nil || string(data) != "hi\n" {
		t.Fatalf("the tool did not run: %q %v", data, err)
	}
	got := map[string]map[string]any{}
	for _, e := range hookEvents(t, r.stdout) {
		got[e["command"].(string)] = e
	}
	if e := got[slow]; e == nil || e["decision"] != "timeout" || e["failed"] != true || e["exit_code"] != -1.0 {
		t.Fatalf("slow hook: %v", e)
	}
	if e := got[bad]; e == nil || e["decision"] != "error" || e["failed"] != true || e["exit_code"] != 1.0 || e["message"] != "boom" {
		t.Fatalf("failing hook: %v", e)
	}
	if e := got[loud]; e == nil || e["failed"] == true || e["exit_code"] != 0.0 {
		t.Fatalf("loud hook: %v", e)
	}
}

// A project's hooks run only once the folder is trusted: never without
// trust (one notice says so), with --trust, or with trusted_projects.
func TestHookProjectTrust(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	marker := filepath.Join(home, "ran")
	for _, d := range []string{".talaria", ".claude"} {
		if err := os.MkdirAll(filepath.Join(cwd, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	yml := "hooks:\n  SessionStart:\n    - hooks:\n        - command: echo talaria >> " + marker + "\n"
	js := `{"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"echo claude >> ` + marker + `"}]}]}}`
	if err := os.WriteFile(filepath.Join(cwd, ".talaria", "config.yaml"), []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cwd, ".claude", "settings.json"), []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := pt.New(t)
	srv.Push(pt.Text("one"), pt.Text("two"), pt.Text("three"))
	r := talaria(t, home, cwd, srv, "", "-p", "hi")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("an untrusted project's hook ran")
	}
	if !strings.Contains(r.stderr, "untrusted project") || strings.Count(r.stderr, "untrusted project") != 1 {
		t.Fatalf("want one notice about the untrusted project's hooks:\n%s", r.stderr)
	}
	r = talaria(t, home, cwd, srv, "", "-p", "hi", "--trust")
	data, _ := os.ReadFile(marker)
	if r.code != 0 || string(data) != "talaria\nclaude\n" {
		t.Fatalf("--trust: exit %d, marker %q\n%s", r.code, data, r.stderr)
	}
	// --trust did not record the folder; trusted_projects does trust it.
	if cfg, err := os.ReadFile(filepath.Join(home, ".talaria", "config.yaml")); err == nil && strings.Contains(string(cfg), cwd) {
		t.Fatal("--trust recorded the folder")
	}
	if err := os.Remove(marker); err != nil {
		t.Fatal(err)
	}
	if _, err := app.TrustProject(filepath.Join(home, ".talaria", "config.yaml"), cwd); err != nil {
		t.Fatal(err)
	}
	r = talaria(t, home, cwd, srv, "", "-p", "hi")
	if data, _ := os.ReadFile(marker); r.code != 0 || string(data) != "talaria\nclaude\n" {
		t.Fatalf("trusted_projects: exit %d, marker %q\n%s", r.code, data, r.stderr)
	}
}

// A hook's allow skips the dialog (headless ask mode runs the command)
// but never lifts a protected path; its ask forces the dialog even under
// --yolo (headless: refused).
func TestHookPermissionDecisions(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(cwd, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	allow := hookScript(t, home, "allow.sh", `cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"trusted"}}'`)
	userHooks(t, home, "hooks:\n  PreToolUse:\n    - matcher: Bash|Write\n      hooks:\n        - command: "+allow+"\n")
	srv := pt.New(t)
	srv.Push(pt.ToolCalls(pt.Call{Name: "terminal", Args: `{"command":"touch made.txt"}`},
		pt.Call{Name: "write_file", Args: `{"path":".git/hooks/post-commit","content":"evil\n"}`}), pt.Text("done"))
	r := talaria(t, home, cwd, srv, "", "-p", "go")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(cwd, "made.txt")); err != nil {
		t.Fatalf("a hook's allow did not skip the approval: %v\n%s", err, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(cwd, ".git", "hooks", "post-commit")); err == nil {
		t.Fatal("a hook's allow lifted the protected path .git")
	}

	home2 := t.TempDir()
	ask := hookScript(t, home2, "ask.sh", `cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask"}}'`)
	userHooks(t, home2, "hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - command: "+ask+"\n")
	srv2 := pt.New(t)
	srv2.Push(pt.ToolCalls(pt.Call{Name: "terminal", Args: `{"command":"touch asked.txt"}`}), pt.Text("done"))
	r = talaria(t, home2, cwd, srv2, "", "-p", "go", "--yolo")
	if _, err := os.Stat(filepath.Join(cwd, "asked.txt")); err == nil {
		t.Fatal("a hook's ask did not force the dialog under --yolo")
	}
	if tool := lastOfRole(hookReqMessages(t, srv2, 1), "tool"); !strings.Contains(tool, "asked for the user's approval") {
		t.Fatalf("tool result: %q", tool)
	}
}

// TrustProject keeps the other keys and comments and adds a folder once.
func TestTrustProjectPreservesConfig(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.yaml")
	orig := "# my settings\napprovals: auto-edit # keep\nmodel:\n  provider: openai\n"
	if err := os.WriteFile(path, []byte(orig), 0o640); err != nil {
		t.Fatal(err)
	}
	proj := t.TempDir()
	for range 2 {
		if _, err := app.TrustProject(path, proj); err != nil {
			t.Fatal(err)
		}
	}
	data, _ := os.ReadFile(path)
	s := string(data)
	if !strings.Contains(s, "# my settings") || !strings.Contains(s, "approvals: auto-edit # keep") || !strings.Contains(s, "provider: openai") ||
		strings.Count(s, proj) != 1 {
		t.Fatalf("rewritten config:\n%s", s)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v", fi.Mode())
	}
	if err := os.WriteFile(path, []byte("trusted_projects: nope\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := app.TrustProject(path, proj); err == nil {
		t.Fatal("a trusted_projects that is not a list was overwritten")
	}
}

// SessionStart's plain stdout reaches the model with the first prompt;
// SessionEnd runs at close with the reason; a delegate_task child's end
// runs SubagentStop (exit 2 once: the child goes on), not Stop.
func TestHookSessionAndSubagentEvents(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	log := filepath.Join(home, "events.log")
	start := hookScript(t, home, "start.sh", `input=$(cat)
case "$input" in *'"source":"startup"'*) echo "startup: remember the zebra rule";; *) echo "source missing: $input" >&2; exit 1;; esac`)
	end := hookScript(t, home, "end.sh", `input=$(cat); case "$input" in *'"reason":"other"'*) echo end >> `+log+`;; esac`)
	sub := hookScript(t, home, "sub.sh", `input=$(cat)
echo subagent >> `+log+`
case "$input" in *'"stop_hook_active":true'*) exit 0;; esac
echo "child: check your work" >&2; exit 2`)
	stop := hookScript(t, home, "stop.sh", `cat >/dev/null; echo stop >> `+log)
	userHooks(t, home, "hooks:\n  SessionStart:\n    - matcher: startup\n      hooks:\n        - command: "+start+
		"\n  SessionEnd:\n    - hooks:\n        - command: "+end+
		"\n  SubagentStop:\n    - hooks:\n        - command: "+sub+
		"\n  Stop:\n    - hooks:\n        - command: "+stop+"\n")
	srv := pt.New(t)
	srv.Push(pt.ToolCalls(pt.Call{Name: "delegate_task", Args: `{"goal":"count the files"}`}),
		pt.Text("child: 3 files"), pt.Text("child: 3 files, checked"), pt.Text("there are 3 files"))
	r := talaria(t, home, cwd, srv, "", "-p", "how many files?")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "there are 3 files" {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if u := lastOfRole(hookReqMessages(t, srv, 0), "user"); !strings.HasPrefix(u, "how many files?") || !strings.Contains(u, "startup: remember the zebra rule") {
		t.Fatalf("SessionStart context missing from the first prompt: %q", u)
	}
	if u := lastOfRole(hookReqMessages(t, srv, 2), "user"); !strings.Contains(u, "child: check your work") {
		t.Fatalf("the child did not read SubagentStop's reason: %q", u)
	}
	if tool := lastOfRole(hookReqMessages(t, srv, 3), "tool"); !strings.Contains(tool, "child: 3 files, checked") {
		t.Fatalf("the parent did not get the child's second answer: %q", tool)
	}
	data, _ := os.ReadFile(log)
	if string(data) != "subagent\nsubagent\nstop\nend\n" {
		t.Fatalf("hook order: %q", data)
	}
}

// The TUI's trust dialog: the session lists the project's hooks it does
// not run; Session.TrustProject records the folder and they apply from
// the next event on. A waiting approval runs the Notification hooks.
func TestSessionTrustProjectAndNotification(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	marker := filepath.Join(home, "marks")
	if err := os.MkdirAll(filepath.Join(cwd, ".talaria"), 0o755); err != nil {
		t.Fatal(err)
	}
	proj := "hooks:\n  UserPromptSubmit:\n    - hooks:\n        - command: cat >/dev/null; echo prompt >> " + marker + "\n"
	if err := os.WriteFile(filepath.Join(cwd, ".talaria", "config.yaml"), []byte(proj), 0o644); err != nil {
		t.Fatal(err)
	}
	note := hookScript(t, home, "note.sh", `input=$(cat); case "$input" in *permission_prompt*) echo notified >> `+marker+`;; esac`)
	userHooks(t, home, "hooks:\n  Notification:\n    - matcher: permission_prompt\n      hooks:\n        - command: "+note+"\n")
	srv := pt.New(t)
	// touch is not a known-safe command outside the sandbox, so it asks,
	// and the approval prompt is what fires the Notification hook.
	srv.Push(pt.Text("one"), pt.ToolCalls(pt.Call{Name: "terminal", Args: `{"command":"touch asked.txt"}`}), pt.Text("two"))
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("OPENAI_BASE_URL", srv.URL())
	approve := func(context.Context, tools.ApprovalRequest) (tools.ApprovalDecision, error) {
		return tools.ApprovalDecision{Allow: true}, nil
	}
	s, err := app.Open(context.Background(), app.Flags{Home: filepath.Join(home, ".talaria"), Cwd: cwd, UI: app.Interactive{Approve: approve}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			s.Close()
		}
	}()
	if u := s.UntrustedHooks(); len(u) != 1 || u[0].Event != "UserPromptSubmit" || u[0].Trusted || s.ProjectRoot() != cwd {
		t.Fatalf("untrusted hooks: %v (root %s)", u, s.ProjectRoot())
	}
	if _, err := s.Agent.Run(context.Background(), "first"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("an untrusted project's hook ran")
	}
	root, err := s.TrustProject()
	if err != nil || root != cwd {
		t.Fatalf("TrustProject: %q %v", root, err)
	}
	cfg, _ := os.ReadFile(filepath.Join(home, ".talaria", "config.yaml"))
	if !strings.Contains(string(cfg), "trusted_projects:\n    - "+cwd) && !strings.Contains(string(cfg), "trusted_projects:\n  - "+cwd) {
		t.Fatalf("not recorded:\n%s", cfg)
	}
	if len(s.UntrustedHooks()) != 0 {
		t.Fatal("still listed as untrusted")
	}
	if _, err := s.Agent.Run(context.Background(), "second"); err != nil {
		t.Fatal(err)
	}
	s.Close() // waits for the background Notification hook
	closed = true
	if data, _ := os.ReadFile(marker); string(data) != "prompt\nnotified\n" {
		t.Fatalf("marks: %q", data)
	}
}

// An interrupt kills a running hook and what it started (its process
// group); the tool it guarded does not run.
func TestHookKilledByInterrupt(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	fifo := filepath.Join(home, "started")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	script := hookScript(t, home, "hang.sh", `cat >/dev/null
sleep 300 &
echo "$$ $!" > `+fifo+`
wait`)
	userHooks(t, home, "hooks:\n  PreToolUse:\n    - hooks:\n        - command: "+script+"\n")
	srv := pt.New(t)
	srv.Push(pt.ToolCalls(pt.Call{Name: "terminal", Args: `{"command":"touch ran.txt"}`}), pt.Text("never"))
	cmd := exec.Command(binary, "-p", "go", "--yolo", "--stdin-commands", "--json")
	cmd.Env, cmd.Dir = env(home, srv), cwd
	stdin, _ := cmd.StdinPipe()
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pids := make(chan string, 1)
	go func() {
		data, _ := os.ReadFile(fifo) // returns once the hook wrote and closed it
		pids <- strings.TrimSpace(string(data))
	}()
	var got string
	select {
	case got = <-pids:
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("the hook never started")
	}
	_, _ = stdin.Write([]byte("/stop\n"))
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("want exit 130, got %v\n%s", err, out.String())
	}
	if _, err := os.Stat(filepath.Join(cwd, "ran.txt")); err == nil {
		t.Fatal("the tool ran after the interrupt")
	}
	hs := hookEvents(t, out.String())
	if len(hs) != 1 || hs[0]["decision"] != "canceled" {
		t.Fatalf("hook.completed: %v", hs)
	}
	for _, f := range strings.Fields(got) {
		pid, _ := strconv.Atoi(f)
		deadline := time.Now().Add(10 * time.Second)
		for alive(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("process %d of the hook outlived the interrupt", pid)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// alive reports a process that exists and is not a zombie.
func alive(pid int) bool {
	if pid <= 0 || syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(stat), ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
}
