package app_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	pt "talaria/providers/providertest"
	"talaria/tools/mcp/mcptest"
)

// binary is the talaria binary built once for these tests.
var binary string

func TestMain(m *testing.M) {
	mcptest.MainIfServer() // the stdio MCP server of mcp_image_test.go
	dir, err := os.MkdirTemp("", "talaria-e2e")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "talaria")
	out, err := exec.Command("go", "build", "-o", binary, "talaria").CombinedOutput()
	if err != nil {
		os.Stderr.Write(out)
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type run struct {
	stdout, stderr string
	code           int
}

// talaria runs the binary with a clean environment pointing at srv.
func talaria(t *testing.T, home, cwd string, srv *pt.Server, stdin string, args ...string) run {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = env(home, srv)
	cmd.Dir = cwd
	cmd.Stdin = strings.NewReader(stdin)
	return runCmd(t, cmd)
}

// runCmd runs cmd and returns what it printed and its exit code.
func runCmd(t *testing.T, cmd *exec.Cmd) run {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return run{out.String(), errb.String(), code}
}

func env(home string, srv *pt.Server) []string {
	e := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TALARIA_HOME=" + filepath.Join(home, ".talaria")}
	if srv != nil {
		e = append(e, "OPENAI_API_KEY=sk-test", "OPENAI_BASE_URL="+srv.URL())
	}
	return e
}

func events(t *testing.T, jsonl string) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(jsonl))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("not one JSON object per line: %q: %v", sc.Text(), err)
		}
		for _, k := range []string{"type", "session_id", "ts"} {
			if _, ok := m[k]; !ok {
				t.Fatalf("event without %s: %s", k, sc.Text())
			}
		}
		out = append(out, m)
	}
	return out
}

func TestHeadlessTurnWithToolsOnDisk(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(cwd, "README.txt"), []byte("project zebra\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := pt.New(t)
	srv.Push(
		pt.ToolCalls(pt.Call{Name: "read_file", Args: `{"path":"README.txt"}`}),
		pt.ToolCalls(pt.Call{Name: "write_file", Args: `{"path":"out/summary.md","content":"zebra\n"}`}),
		pt.Text("The project is called zebra; I wrote out/summary.md."),
	)
	r := talaria(t, home, cwd, srv, "", "-p", "summarise the readme", "--yolo")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "The project is called zebra; I wrote out/summary.md." {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if data, err := os.ReadFile(filepath.Join(cwd, "out/summary.md")); err != nil || string(data) != "zebra\n" {
		t.Fatalf("write_file did not reach the disk: %q %v", data, err)
	}
	if !strings.Contains(r.stderr, "read_file") {
		t.Fatalf("no progress on stderr: %s", r.stderr)
	}
	// The session was saved: sessions and export show it.
	ls := talaria(t, home, cwd, nil, "", "sessions", "--json")
	var list []map[string]any
	if err := json.Unmarshal([]byte(ls.stdout), &list); err != nil || len(list) != 1 {
		t.Fatalf("sessions --json: %q %v", ls.stdout, err)
	}
	if list[0]["title"] != "summarise the readme" {
		t.Fatalf("title: %v", list[0])
	}
	ex := talaria(t, home, cwd, nil, "", "export", list[0]["id"].(string))
	lines := strings.Split(strings.TrimSpace(ex.stdout), "\n")
	if ex.code != 0 || len(lines) != 6 { // user, asst+call, tool, asst+call, tool, answer
		t.Fatalf("export: exit %d, %d lines:\n%s\n%s", ex.code, len(lines), ex.stdout, ex.stderr)
	}
	table := talaria(t, home, cwd, nil, "", "sessions")
	if !strings.Contains(table.stdout, "summarise the readme") {
		t.Fatalf("sessions table: %s", table.stdout)
	}
}

func TestHeadlessJSONEvents(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	srv := pt.New(t)
	srv.Push(pt.ToolCalls(pt.Call{Name: "search_files", Args: `{"pattern":"nothing-here"}`}), pt.Text("Nothing found."))
	r := talaria(t, home, cwd, srv, "", "-p", "find it", "--json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	evs := events(t, r.stdout)
	var types []string
	for _, e := range evs {
		types = append(types, e["type"].(string))
	}
	got := strings.Join(types, " ")
	for _, want := range []string{"session.started turn.started iteration.started", "tools.planned tool.started tool.completed", "turn.finished"} {
		if !strings.Contains(got, want) {
			t.Fatalf("event order %q lacks %q", got, want)
		}
	}
	last := evs[len(evs)-1]
	if last["exit_reason"] != "text_response(finish_reason=stop)" || last["completed"] != true || last["final_response"] != "Nothing found." {
		t.Fatalf("turn.finished: %v", last)
	}
	for _, k := range []string{"api_calls", "usage", "pending_steer", "cleanup_errors", "explanation"} {
		if _, ok := last[k]; !ok {
			t.Fatalf("turn.finished lacks %s", k)
		}
	}
	if _, err := time.Parse(time.RFC3339Nano, last["ts"].(string)); err != nil {
		t.Fatalf("ts not RFC 3339: %v", err)
	}
	ss := evs[0]
	if ss["provider"] != "openai" || ss["model"] != "gpt-4.1" || ss["cwd"] == "" {
		t.Fatalf("session.started: %v", ss)
	}
}

func TestUsageErrorsExit2(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	cfgDir := filepath.Join(home, ".talaria")
	_ = os.MkdirAll(cfgDir, 0o755)
	_ = os.WriteFile(filepath.Join(cfgDir, "config.yaml"), []byte("model:\n  provder: openai\n"), 0o644)
	r := talaria(t, home, cwd, pt.New(t), "", "-p", "hi")
	if r.code != 2 || !strings.Contains(r.stderr, "model.provder") || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
		t.Fatalf("bad key: exit %d, stderr %q", r.code, r.stderr)
	}
	r = talaria(t, t.TempDir(), cwd, pt.New(t), "", "-p", "hi", "--max-iterations", "-3")
	if r.code != 2 || !strings.Contains(r.stderr, "--max-iterations") {
		t.Fatalf("bad flag: exit %d, stderr %q", r.code, r.stderr)
	}
	r = talaria(t, t.TempDir(), cwd, pt.New(t), "", "bogus")
	if r.code != 2 {
		t.Fatalf("unknown command: exit %d", r.code)
	}
}

func TestHeadlessNoProviderExit2(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	cmd := exec.Command(binary, "-p", "hi")
	cmd.Env = env(home, nil)
	cmd.Dir = cwd
	out, err := cmd.CombinedOutput()
	ee, ok := err.(*exec.ExitError)
	// A developer machine may run a local model server that the probe finds;
	// only a machine without one must exit 2 with the advice.
	if ok && ee.ExitCode() == 2 {
		if !strings.Contains(string(out), "OPENAI_API_KEY") || !strings.Contains(string(out), "--demo") {
			t.Fatalf("no advice: %s", out)
		}
	}
}

func TestStdinStopInterrupts(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	srv := pt.New(t)
	hold := make(chan struct{})
	defer close(hold)
	srv.Push(pt.Reply{Chunks: pt.TextChunks("never", "stop"), Hold: hold})
	cmd := exec.Command(binary, "-p", "wait", "--stdin-commands", "--json")
	cmd.Env = env(home, srv)
	cmd.Dir = cwd
	stdin, _ := cmd.StdinPipe()
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	<-srv.Started()
	_, _ = stdin.Write([]byte("/stop\n"))
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("want exit 130, got %v", err)
	}
	evs := events(t, out.String())
	if last := evs[len(evs)-1]; last["exit_reason"] != "interrupted_during_api_call" {
		t.Fatalf("last event: %v", last)
	}
}

func TestSIGINTInterrupts(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	srv := pt.New(t)
	hold := make(chan struct{})
	defer close(hold)
	srv.Push(pt.Reply{Chunks: pt.TextChunks("never", "stop"), Hold: hold})
	cmd := exec.Command(binary, "-p", "wait", "--json")
	cmd.Env = env(home, srv)
	cmd.Dir = cwd
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	<-srv.Started()
	_ = cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("want exit 130, got %v", err)
	}
	// The user message was saved before the model call and survives.
	ex := talaria(t, home, cwd, nil, "", "sessions", "--json")
	if !strings.Contains(ex.stdout, `"wait"`) {
		t.Fatalf("session not saved: %s", ex.stdout)
	}
}

func TestSteerFromStdin(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	srv := pt.New(t)
	hold := make(chan struct{})
	srv.Push(
		pt.Reply{Chunks: pt.ToolCallChunks("tool_calls", pt.Call{Name: "search_files", Args: `{"pattern":"x"}`}), Hold: hold},
		pt.Text("ok, steered"),
	)
	cmd := exec.Command(binary, "-p", "go", "--stdin-commands", "--json")
	cmd.Env = env(home, srv)
	cmd.Dir = cwd
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	<-srv.Started()
	_, _ = stdin.Write([]byte("/steer focus on tests\n"))
	// Release the held reply only once the steer is queued (its event is on
	// stdout), so delivery before the second call is deterministic.
	sc := bufio.NewScanner(stdout)
	var delivered bool
	for sc.Scan() {
		line := sc.Text()
		if strings.Contains(line, `"type":"steer.queued"`) {
			if !strings.Contains(line, `"id":1`) {
				t.Errorf("steer.queued without its id: %s", line)
			}
			close(hold)
		}
		if strings.Contains(line, `"type":"steer.delivered"`) {
			delivered = strings.Contains(line, `"ids":[1]`)
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if !delivered || !strings.Contains(srv.RawRequests()[1], "focus on tests") {
		t.Fatalf("steer not delivered into the second request: %s", srv.RawRequests()[1])
	}
}

func TestHeadlessWriteDeniedWithoutYolo(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	srv := pt.New(t)
	srv.Push(
		pt.ToolCalls(pt.Call{Name: "write_file", Args: `{"path":"x.txt","content":"x"}`}),
		pt.Text("I could not write."),
	)
	r := talaria(t, home, cwd, srv, "", "-p", "write x")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(cwd, "x.txt")); err == nil {
		t.Fatal("write_file ran without approval")
	}
	if second := srv.RawRequests()[1]; !strings.Contains(second, "--yolo") {
		t.Fatalf("the denial must say how to allow: %s", second)
	}
}

func TestDelegateTaskRunsAChildAgent(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	srv := pt.New(t)
	srv.Push(
		pt.ToolCalls(pt.Call{Name: "delegate_task", Args: `{"goal":"list the files"}`}),
		pt.Text("Child summary: the directory is empty."),
		pt.Text("The subagent says the directory is empty."),
	)
	r := talaria(t, home, cwd, srv, "", "-p", "delegate it", "--yolo")
	if r.code != 0 || !strings.Contains(r.stdout, "subagent says") {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	reqs := srv.RawRequests()
	if len(reqs) != 3 || !strings.Contains(reqs[1], "list the files") || strings.Contains(reqs[1], `"name":"delegate_task"`) {
		t.Fatalf("child request wrong (it must carry the goal and no delegate_task tool): %d requests\n%s", len(reqs), reqs[1])
	}
	if !strings.Contains(reqs[2], "Child summary") {
		t.Fatalf("the child's summary did not come back to the parent: %s", reqs[2])
	}
}

func TestSessionsManageAndSearch(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	srv := pt.New(t)
	srv.Push(pt.Text("The flux capacitor needs 1.21 gigawatts."))
	if r := talaria(t, home, cwd, srv, "", "-p", "how much power for the flux capacitor?"); r.code != 0 {
		t.Fatalf("turn: %d %s", r.code, r.stderr)
	}
	found := talaria(t, home, cwd, nil, "", "sessions", "search", "gigawatts")
	if found.code != 0 || !strings.Contains(found.stdout, "1.21 gigawatts") {
		t.Fatalf("search: %d %q %q", found.code, found.stdout, found.stderr)
	}
	id := strings.Fields(found.stdout)[0]
	if r := talaria(t, home, cwd, nil, "", "sessions", "rename", id[:10], "time", "travel"); r.code != 0 {
		t.Fatalf("rename: %d %s", r.code, r.stderr)
	}
	if ls := talaria(t, home, cwd, nil, "", "sessions"); !strings.Contains(ls.stdout, "time travel") {
		t.Fatalf("renamed title missing: %s", ls.stdout)
	}
	if r := talaria(t, home, cwd, nil, "", "sessions", "rm", id); r.code != 0 {
		t.Fatalf("rm: %d %s", r.code, r.stderr)
	}
	if ls := talaria(t, home, cwd, nil, "", "sessions", "--json"); strings.TrimSpace(ls.stdout) != "[]" {
		t.Fatalf("session not deleted: %s", ls.stdout)
	}
}

func TestResumeKeepsSystemPromptBytes(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	srv := pt.New(t)
	srv.Push(pt.Text("first"), pt.Text("second"))
	if r := talaria(t, home, cwd, srv, "", "-p", "one"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	if r := talaria(t, home, cwd, srv, "", "-c", "-p", "two"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	raw := srv.RawRequests()
	sys := func(body string) string {
		i := strings.Index(body, `"messages":[`)
		j := strings.Index(body[i:], `},{`)
		return body[i : i+j]
	}
	if sys(raw[0]) != sys(raw[1]) {
		t.Fatalf("system prompt changed across a restart:\n%s\n%s", sys(raw[0]), sys(raw[1]))
	}
	if !strings.Contains(raw[1], `"content":"one"`) || !strings.Contains(raw[1], `"content":"first"`) {
		t.Fatalf("-c did not continue the session: %s", raw[1])
	}
}

func TestUsageAndCostSaved(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	srv := pt.New(t)
	srv.Push(pt.Text("counted"))
	if r := talaria(t, home, cwd, srv, "", "-p", "count me"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	ls := talaria(t, home, cwd, nil, "", "sessions", "--json")
	var list []map[string]any
	if err := json.Unmarshal([]byte(ls.stdout), &list); err != nil || len(list) != 1 {
		t.Fatalf("sessions: %s", ls.stdout)
	}
	s := list[0]
	// One call; the scripted server reports 10 prompt tokens; gpt-4.1 is priced.
	if s["api_call_count"] != float64(1) || s["input_tokens"] != float64(10) || s["estimated_cost_usd"] == nil {
		t.Fatalf("usage not saved once: %v", s)
	}
}

func TestTodosKeptWithTheSession(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	srv := pt.New(t)
	srv.Push(
		pt.ToolCalls(pt.Call{Name: "todo", Args: `{"todos":[{"id":"1","content":"write the parser","status":"in_progress"}]}`}),
		pt.Text("planned"),
		pt.ToolCalls(pt.Call{Name: "todo", Args: `{}`}),
		pt.Text("still planned"),
	)
	if r := talaria(t, home, cwd, srv, "", "-p", "plan"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	if r := talaria(t, home, cwd, srv, "", "-c", "-p", "what is on the list?"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	var req struct {
		Messages []struct{ Role, Content string } `json:"messages"`
	}
	if err := json.Unmarshal([]byte(srv.RawRequests()[3]), &req); err != nil {
		t.Fatal(err)
	}
	last := req.Messages[len(req.Messages)-1]
	if last.Role != "tool" || !strings.Contains(last.Content, "write the parser") {
		t.Fatalf("the todo list did not survive the restart: %+v", last)
	}
}

// TestKill9MidTurnLosesNoUserInput kills the process while its model call
// hangs, then continues the session: the user message was saved before the
// call and the resumed session replays it.
func TestKill9MidTurnLosesNoUserInput(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	srv := pt.New(t)
	hold := make(chan struct{})
	defer close(hold)
	srv.Push(pt.Reply{Chunks: pt.TextChunks("never", "stop"), Hold: hold})
	cmd := exec.Command(binary, "-p", "remember the blue whale")
	cmd.Env = env(home, srv)
	cmd.Dir = cwd
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	<-srv.Started()
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	srv.Push(pt.Text("resumed fine"))
	r := talaria(t, home, cwd, srv, "", "-c", "-p", "what did I ask?")
	if r.code != 0 {
		t.Fatalf("resume after kill -9: exit %d: %s", r.code, r.stderr)
	}
	if raw := srv.RawRequests()[1]; !strings.Contains(raw, "remember the blue whale") {
		t.Fatalf("the killed turn's user message was lost: %s", raw)
	}
}
