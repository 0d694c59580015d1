package app_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"talaria/tools/sandbox/sandboxtest"
	"testing"

	pt "talaria/providers/providertest"
)

// toolResults returns the content of every tool message the provider was
// sent, in order (each request repeats the earlier ones; the last request
// holds them all).
func toolResults(t *testing.T, srv *pt.Server) []string {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("no request reached the provider")
	}
	var out []string
	msgs, _ := reqs[len(reqs)-1]["messages"].([]any)
	for _, m := range msgs {
		mm, _ := m.(map[string]any)
		if mm["role"] == "tool" {
			s, _ := mm["content"].(string)
			out = append(out, s)
		}
	}
	return out
}

func writeConfig(t *testing.T, home, yaml string) {
	t.Helper()
	dir := filepath.Join(home, ".talaria")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
}

func v4aArg(body string) string {
	b, _ := json.Marshal("*** Begin Patch\n" + body + "\n*** End Patch")
	return string(b)
}

// TestContainBypassesEndToEnd drives the binary, headless in auto-edit,
// with a model that spells arguments as an attacker would: each call is
// refused or needs an approval nobody can give, the result says so, and
// the file outside the working directory is untouched.
func TestContainBypassesEndToEnd(t *testing.T) {
	home, cwd, outside := t.TempDir(), t.TempDir(), t.TempDir()
	writeConfig(t, home, "approvals: auto-edit\n")
	keep, victim := filepath.Join(outside, "keep"), filepath.Join(outside, "new")
	if err := os.WriteFile(keep, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cwd, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	calls := []struct{ name, args, want string }{
		{"patch", `{"PATCH":` + v4aArg("*** Add File: "+victim+"\n+x") + `}`, `did you mean "patch"`},
		{"patch", `{"Patch":` + v4aArg("*** Delete File: "+keep) + `}`, `did you mean "patch"`},
		{"patch", `{"Mode":"patch","Patch":` + v4aArg("*** Delete File: "+keep) + `}`, `did you mean "mode"`},
		{"patch", `{"mode":"patch","patch":` + v4aArg("*** Add File: "+victim+"\n+x") + `}`, "needs the user's approval"},
		{"patch", `{"mode":"patch","patch":` + v4aArg("*** Delete File: "+keep) + `}`, "needs the user's approval"},
		{"patch", `{"mode":"patch","patch":` + v4aArg("*** Update File: a.txt\n*** Move to: "+victim+"\n@@\n-a\n+b") + `}`, "needs the user's approval"},
		{"terminal", `{"Command":"rm -f ` + keep + `"}`, `did you mean "command"`},
		{"process", `{"Action":"kill","id":"proc_1"}`, `did you mean "action"`},
		{"write_file", `{"path":".git/config","content":"[core]\n\tfsmonitor = touch ` + victim + `\n"}`, "protected"},
		{"write_file", `{"path":".git/hooks/x","content":"#!/bin/sh\n"}`, "protected"},
	}
	srv := pt.New(t)
	for _, c := range calls {
		srv.Push(pt.ToolCalls(pt.Call{Name: c.name, Args: c.args}))
	}
	srv.Push(pt.Text("done"))
	r := talaria(t, home, cwd, srv, "", "-p", "try")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	results := toolResults(t, srv)
	if len(results) != len(calls) {
		t.Fatalf("%d tool results for %d calls: %q", len(results), len(calls), results)
	}
	for i, c := range calls {
		if !strings.Contains(results[i], c.want) {
			t.Errorf("%s %s: result %q, want %q", c.name, c.args, results[i], c.want)
		}
	}
	if b, err := os.ReadFile(keep); err != nil || string(b) != "keep\n" {
		t.Errorf("outside file changed: %q %v", b, err)
	}
	if _, err := os.Stat(victim); err == nil {
		t.Error("a file was created outside the working directory")
	}
	if _, err := os.Stat(filepath.Join(cwd, ".git")); err == nil {
		t.Error(".git was written")
	}
	if b, _ := os.ReadFile(filepath.Join(cwd, "a.txt")); string(b) != "a\n" {
		t.Errorf("a.txt was moved or changed: %q", b)
	}
}

// TestContainDelegateChildUsesApprover: a delegate_task child's calls go
// through the parent's approver: its capitalised patch is refused and its
// edit outside the tree needs an approval nobody gives.
func TestContainDelegateChildUsesApprover(t *testing.T) {
	home, cwd, outside := t.TempDir(), t.TempDir(), t.TempDir()
	writeConfig(t, home, "approvals: auto-edit\n")
	victim := filepath.Join(outside, "x")
	srv := pt.New(t)
	srv.Push(
		pt.ToolCalls(pt.Call{Name: "delegate_task", Args: `{"goal":"write the file"}`}),
		// The child:
		pt.ToolCalls(pt.Call{Name: "patch", Args: `{"PATCH":` + v4aArg("*** Add File: "+victim+"\n+x") + `}`}),
		pt.ToolCalls(pt.Call{Name: "write_file", Args: `{"path":"` + victim + `","content":"x"}`}),
		pt.Text("child done"),
		// The parent:
		pt.Text("parent done"),
	)
	r := talaria(t, home, cwd, srv, "", "-p", "delegate")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if _, err := os.Stat(victim); err == nil {
		t.Fatal("the child wrote outside the working directory")
	}
	var childResults []string
	for _, req := range srv.Requests() {
		msgs, _ := req["messages"].([]any)
		for _, m := range msgs {
			mm, _ := m.(map[string]any)
			if s, _ := mm["content"].(string); mm["role"] == "tool" {
				childResults = append(childResults, s)
			}
		}
	}
	all := strings.Join(childResults, "\n")
	if !strings.Contains(all, `did you mean "patch"`) || !strings.Contains(all, "needs the user's approval") {
		t.Errorf("child results: %q", childResults)
	}
}

// TestContainTalariaHomeAsksInAutoEdit: with $TALARIA_HOME inside the
// working directory, an edit of its config.yaml needs an approval.
func TestContainTalariaHomeAsksInAutoEdit(t *testing.T) {
	home := t.TempDir()
	cwd := home // TALARIA_HOME is home/.talaria, below the working directory
	writeConfig(t, home, "approvals: auto-edit\n")
	srv := pt.New(t)
	srv.Push(
		pt.ToolCalls(pt.Call{Name: "write_file", Args: `{"path":".talaria/config.yaml","content":"approvals: yolo\n"}`}),
		pt.Text("done"),
	)
	r := talaria(t, home, cwd, srv, "", "-p", "try")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if res := toolResults(t, srv); len(res) != 1 || !strings.Contains(res[0], "protected") {
		t.Errorf("results %q", res)
	}
	if b, _ := os.ReadFile(filepath.Join(home, ".talaria", "config.yaml")); string(b) != "approvals: auto-edit\n" {
		t.Errorf("config.yaml = %q", b)
	}
}

// talariaWith runs the binary like talaria, with extra environment.
func talariaWith(t *testing.T, home, cwd string, srv *pt.Server, extra []string, args ...string) run {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(env(home, srv), extra...)
	cmd.Dir = cwd
	return runCmd(t, cmd)
}

// TestContainCommandsGetNoSecrets: commands see neither the provider key
// nor other secret-looking variables, except those passed through.
func TestContainCommandsGetNoSecrets(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	writeConfig(t, home, "terminal:\n  env_passthrough: [PASS_TOKEN]\nmodel:\n  provider: openai\n  api_keys_env: [OPENAI_API_KEY, EXTRA_POOL]\n")
	srv := pt.New(t)
	srv.Push(
		pt.ToolCalls(pt.Call{Name: "terminal", Args: `{"command":"echo \"k=$OPENAI_API_KEY s=$MY_SECRET x=$EXTRA_POOL p=$PASS_TOKEN h=$PLAIN\""}`}),
		pt.Text("done"),
	)
	r := talariaWith(t, home, cwd, srv, []string{"MY_SECRET=hidden1", "EXTRA_POOL=sk-pool-secret-value", "PASS_TOKEN=passed", "PLAIN=plain"}, "-p", "env", "--yolo")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	res := toolResults(t, srv)
	if len(res) != 1 || !strings.Contains(res[0], "k= s= x= p=passed h=plain") {
		t.Fatalf("command saw: %q", res)
	}
}

// TestContainMasksKeyIn401: a provider's 401 body that echoes the key,
// and a base_url with userinfo, never show the key: not on stdout or
// stderr, not in the events, the log or the stored session.
func TestContainMasksKeyIn401(t *testing.T) {
	const key = "sk-live-0123456789abcdefWXYZ"
	home, cwd := t.TempDir(), t.TempDir()
	writeConfig(t, home, "agent:\n  api_max_retries: 0\n")
	srv := pt.New(t)
	body := `{"error":{"message":"Incorrect API key provided: ` + key + `. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","code":"invalid_api_key"}}`
	srv.Push(pt.Error(401, body, nil), pt.Error(401, body, nil))
	r := talariaWith(t, home, cwd, srv, []string{"OPENAI_API_KEY=" + key}, "-p", "hi", "--json")
	all := r.stdout + r.stderr
	r = talariaWith(t, home, cwd, srv, []string{"OPENAI_API_KEY=" + key}, "-p", "hi")
	all += r.stdout + r.stderr
	if !strings.Contains(all, "sk-…WXYZ") {
		t.Errorf("no masked key in the output:\n%s", all)
	}
	ls := talariaWith(t, home, cwd, nil, nil, "sessions", "--json")
	var list []map[string]any
	_ = json.Unmarshal([]byte(ls.stdout), &list)
	for _, s := range list {
		ex := talariaWith(t, home, cwd, nil, nil, "export", s["id"].(string))
		all += ex.stdout
	}
	logData, _ := os.ReadFile(filepath.Join(home, ".talaria", "logs", "talaria.log"))
	all += string(logData)
	if strings.Contains(all, key) {
		t.Fatalf("the key leaked:\n%s", all)
	}

	// URL userinfo in base_url.
	writeConfig(t, home, "agent:\n  api_max_retries: 0\nmodel:\n  provider: custom\n  name: m\n  base_url: http://user:hunter2-secret-pw@127.0.0.1:1/v1\n")
	r = talariaWith(t, home, cwd, nil, []string{"OPENAI_API_KEY=" + key}, "-p", "hi", "--json")
	logData, _ = os.ReadFile(filepath.Join(home, ".talaria", "logs", "talaria.log"))
	if all := r.stdout + r.stderr + string(logData); strings.Contains(all, "hunter2-secret-pw") || r.code == 0 {
		t.Fatalf("exit %d, userinfo leaked:\n%s", r.code, all)
	}
}

// notUnderTmp makes a directory outside /tmp (which workspace-write may
// write), see sandboxtest.Scratch.
func notUnderTmp(t *testing.T) string {
	t.Helper()
	return sandboxtest.Scratch(t, ".sbx-e2e-")
}

// TestSandboxEndToEnd: in ask mode with the sandbox, a non-destructive
// command runs without asking (headless), writes inside the working
// directory land, and writes outside it or under .git are stopped with a
// result saying the sandbox stopped them; nothing escalates headless.
func TestSandboxEndToEnd(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bubblewrap is not installed")
	}
	home, base := t.TempDir(), notUnderTmp(t)
	cwd, outside := filepath.Join(base, "cwd"), filepath.Join(base, "outside")
	for _, d := range []string{cwd + "/.git", outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	srv := pt.New(t)
	srv.Push(
		pt.ToolCalls(pt.Call{Name: "terminal", Args: `{"command":"touch inside.txt && echo ran"}`}),
		pt.ToolCalls(pt.Call{Name: "terminal", Args: `{"command":"touch ` + outside + `/x"}`}),
		pt.ToolCalls(pt.Call{Name: "terminal", Args: `{"command":"touch .git/hooks-x"}`}),
		pt.ToolCalls(pt.Call{Name: "terminal", Args: `{"command":"setsid sh -c 'touch ` + outside + `/y'"}`}),
		pt.Text("done"),
	)
	r := talaria(t, home, cwd, srv, "", "-p", "sandboxed", "--sandbox", "workspace-write")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	res := toolResults(t, srv)
	if len(res) != 4 {
		t.Fatalf("results: %q", res)
	}
	if !strings.Contains(res[0], "ran") {
		t.Errorf("inside: %q", res[0])
	}
	for _, i := range []int{1, 2} {
		if !strings.Contains(res[i], "the sandbox (workspace-write) probably stopped it") || !strings.Contains(res[i], "No user is here") {
			t.Errorf("result %d: %q", i, res[i])
		}
	}
	if !strings.Contains(res[3], "needs the user's approval") || !strings.Contains(res[3], "setsid") {
		t.Errorf("setsid was not asked for: %q", res[3])
	}
	if _, err := os.Stat(filepath.Join(cwd, "inside.txt")); err != nil {
		t.Error("the write inside did not land")
	}
	for _, p := range []string{outside + "/x", outside + "/y", cwd + "/.git/hooks-x"} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written", p)
		}
	}
}

// TestSandboxUnavailableExits2: where Landlock is unavailable (forced), a
// sandbox mode other than off is an error at start, never a fallback.
func TestSandboxUnavailableExits2(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	srv := pt.New(t)
	r := talariaWith(t, home, cwd, srv, []string{"TALARIA_SANDBOX_PROBE=fail"}, "-p", "hi", "--sandbox", "read-only")
	if r.code != 2 || !strings.Contains(r.stderr, "Landlock is unavailable") {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if len(srv.Requests()) != 0 {
		t.Error("a turn ran")
	}
	r = talariaWith(t, home, cwd, srv, nil, "-p", "hi", "--sandbox", "sometimes")
	if r.code != 2 || !strings.Contains(r.stderr, "--sandbox") {
		t.Fatalf("bad mode: exit %d: %s", r.code, r.stderr)
	}
}
