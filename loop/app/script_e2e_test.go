package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	pt "talaria/providers/providertest"
)

// userMessages returns the contents of a chat request's user messages.
func userMessages(req map[string]any) []string {
	var out []string
	msgs, _ := req["messages"].([]any)
	for _, m := range msgs {
		mm, _ := m.(map[string]any)
		if mm["role"] == "user" {
			s, _ := mm["content"].(string)
			out = append(out, s)
		}
	}
	return out
}

// systemMessage returns a chat request's system message.
func systemMessage(req map[string]any) string {
	msgs, _ := req["messages"].([]any)
	for _, m := range msgs {
		if mm, _ := m.(map[string]any); mm["role"] == "system" {
			s, _ := mm["content"].(string)
			return s
		}
	}
	return ""
}

// TestPipedStdinReachesTheRequest: `cat log | talaria -p Q` sends Q with
// the log attached, marked as piped input; `-p -` still reads the prompt
// itself from stdin, with nothing attached.
func TestPipedStdinReachesTheRequest(t *testing.T) {
	srv := pt.New(t)
	srv.Push(pt.Text("the disk is full"), pt.Text("read it"))
	r := talaria(t, t.TempDir(), t.TempDir(), srv, "ERROR: no space left on device\n", "-p", "what is wrong?")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "the disk is full" {
		t.Fatalf("exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
	}
	got := userMessages(srv.Requests()[0])
	if len(got) != 1 || !strings.HasPrefix(got[0], "what is wrong?\n\n<piped_input") ||
		!strings.Contains(got[0], "ERROR: no space left on device\n</piped_input>") {
		t.Fatalf("user message %q", got)
	}
	r = talaria(t, t.TempDir(), t.TempDir(), srv, "the prompt itself", "-p", "-")
	if r.code != 0 {
		t.Fatalf("-p -: exit %d: %s", r.code, r.stderr)
	}
	if got := userMessages(srv.Requests()[1]); len(got) != 1 || got[0] != "the prompt itself" {
		t.Fatalf("-p - user message %q", got)
	}
}

// TestPipedStdinEmptyOrDevNull: an empty pipe and /dev/null attach
// nothing, and no wait.
func TestPipedStdinEmptyOrDevNull(t *testing.T) {
	srv := pt.New(t)
	srv.Push(pt.Text("a"), pt.Text("b"))
	r := talaria(t, t.TempDir(), t.TempDir(), srv, "", "-p", "hello")
	if r.code != 0 || strings.Contains(r.stderr, "stdin") {
		t.Fatalf("empty pipe: exit %d: %s", r.code, r.stderr)
	}
	cmd := exec.Command(binary, "-p", "hello")
	cmd.Env, cmd.Dir = env(t.TempDir(), srv), t.TempDir() // Stdin nil: /dev/null
	r = runCmd(t, cmd)
	if r.code != 0 || strings.Contains(r.stderr, "stdin") {
		t.Fatalf("/dev/null: exit %d: %s", r.code, r.stderr)
	}
	for i, req := range srv.Requests() {
		if got := userMessages(req); len(got) != 1 || got[0] != "hello" {
			t.Fatalf("request %d: user message %q", i, got)
		}
	}
}

// TestPipedStdinNeverClosedDoesNotHang: a stdin pipe nobody writes to nor
// closes (a CI runner's) does not hold the run: it goes on without piped
// input and says so.
func TestPipedStdinNeverClosedDoesNotHang(t *testing.T) {
	srv := pt.New(t)
	srv.Push(pt.Text("went on"))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "-p", "hello")
	cmd.Env, cmd.Dir = env(t.TempDir(), srv), t.TempDir()
	w, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r := runCmd(t, cmd)
	if ctx.Err() != nil {
		t.Fatal("talaria hung on an open, silent stdin")
	}
	if r.code != 0 || strings.TrimSpace(r.stdout) != "went on" || !strings.Contains(r.stderr, "nothing arrived on stdin") {
		t.Fatalf("exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
	}
}

// TestPipedBinaryRefused: a NUL byte or invalid UTF-8 on stdin is exit 2
// with a clear line, before any request.
func TestPipedBinaryRefused(t *testing.T) {
	srv := pt.New(t)
	for _, in := range []string{"PK\x03\x04\x00\x00", "caf\xe9 au lait"} {
		r := talaria(t, t.TempDir(), t.TempDir(), srv, in, "-p", "what is this?")
		if r.code != 2 || !strings.Contains(r.stderr, "piped stdin is") || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Fatalf("%q: exit %d, stderr %q", in, r.code, r.stderr)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
}

// TestPipedOverCapRefused: piped text that with the prompt passes the
// 4 MiB cap is exit 2.
func TestPipedOverCapRefused(t *testing.T) {
	srv := pt.New(t)
	r := talaria(t, t.TempDir(), t.TempDir(), srv, strings.Repeat("x", 4<<20), "-p", "summarise")
	if r.code != 2 || !strings.Contains(r.stderr, "4 MiB") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
}

const testSchema = `{"title":"review","type":"object","properties":{"verdict":{"type":"string","enum":["ok","bad"]},"count":{"type":"integer"}},"required":["verdict","count"],"additionalProperties":false}`

func writeSchema(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "schema.json")
	if err := os.WriteFile(p, []byte(testSchema), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestOutputSchemaRightFirstTime: response_format json_schema is on the
// chat wire, stdout is the JSON alone, one call.
func TestOutputSchemaRightFirstTime(t *testing.T) {
	srv := pt.New(t)
	srv.Push(pt.Text(`{"verdict": "ok", "count": 2}`))
	r := talaria(t, t.TempDir(), t.TempDir(), srv, "", "-p", "review", "--output-schema", writeSchema(t))
	if r.code != 0 || r.stdout != `{"verdict":"ok","count":2}`+"\n" {
		t.Fatalf("exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	rf, _ := reqs[0]["response_format"].(map[string]any)
	js, _ := rf["json_schema"].(map[string]any)
	if rf["type"] != "json_schema" || js["name"] != "review" || js["strict"] != true || js["schema"] == nil {
		t.Fatalf("response_format %v", reqs[0]["response_format"])
	}
	if u := userMessages(reqs[0]); !strings.Contains(u[0], `"additionalProperties":false`) {
		t.Fatalf("no schema instruction in %q", u)
	}
}

// TestOutputSchemaWrongThenRight: an invalid answer is sent back once
// with the validation errors; the second answer is the result, and
// turn.finished.structured_output holds it.
func TestOutputSchemaWrongThenRight(t *testing.T) {
	srv := pt.New(t)
	srv.Push(pt.Text(`{"verdict": "maybe", "count": 2}`), pt.Text("```json\n{\"verdict\":\"bad\",\"count\":1}\n```"))
	r := talaria(t, t.TempDir(), t.TempDir(), srv, "", "-p", "review", "--json-schema", writeSchema(t), "--json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	u := userMessages(reqs[1])
	if len(u) != 2 || !strings.Contains(u[1], "not valid against the required JSON Schema") || !strings.Contains(u[1], "maybe") && !strings.Contains(u[1], "enum") {
		t.Fatalf("second request's user messages %q", u)
	}
	var fin map[string]any
	for _, ev := range events(t, r.stdout) {
		if ev["type"] == "turn.finished" {
			fin = ev
		}
	}
	so, _ := json.Marshal(fin["structured_output"])
	if fin["completed"] != true || string(so) != `{"count":1,"verdict":"bad"}` {
		t.Fatalf("turn.finished %v", fin)
	}
}

// TestOutputSchemaWrongTwice: still invalid after the repair: exit 1,
// invalid_structured_output, the errors in the explanation, nothing on
// stdout, no -o file.
func TestOutputSchemaWrongTwice(t *testing.T) {
	srv := pt.New(t)
	srv.Push(pt.Text(`not json`), pt.Text(`{"verdict":"ok"}`))
	out := filepath.Join(t.TempDir(), "last.json")
	r := talaria(t, t.TempDir(), t.TempDir(), srv, "", "-p", "review", "--output-schema", writeSchema(t), "-o", out, "--output-format", "json")
	if r.code != 1 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("stdout %q: %v", r.stdout, err)
	}
	if res["exit_reason"] != "invalid_structured_output" || res["completed"] != false || !strings.Contains(res["explanation"].(string), "count") {
		t.Fatalf("result %v", res)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("-o file written on failure: %v", err)
	}
	if len(srv.Requests()) != 2 {
		t.Fatalf("%d requests", len(srv.Requests()))
	}
}

// TestOutputLastMessage: -o (and --output-last-message) holds the final
// answer after a completed turn.
func TestOutputLastMessage(t *testing.T) {
	srv := pt.New(t)
	srv.Push(pt.Text("all good"), pt.Text("all good"))
	dir := t.TempDir()
	for _, flag := range []string{"-o", "--output-last-message"} {
		out := filepath.Join(dir, strings.TrimLeft(flag, "-")+".txt")
		r := talaria(t, t.TempDir(), t.TempDir(), srv, "", "-p", "check", flag, out)
		b, err := os.ReadFile(out)
		if r.code != 0 || err != nil || string(b) != "all good\n" {
			t.Fatalf("%s: exit %d, file %q %v, stderr %s", flag, r.code, b, err, r.stderr)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Fatalf("temporary files left: %v", ents)
	}
}

// TestOutputLastMessageAbsentOnFailure: a turn that ends without
// completing writes no -o file and exits 1.
func TestOutputLastMessageAbsentOnFailure(t *testing.T) {
	srv := pt.New(t)
	srv.Push(pt.Error(401, `{"error":{"message":"bad key","type":"invalid_request_error","code":"invalid_api_key"}}`, nil))
	out := filepath.Join(t.TempDir(), "last.txt")
	r := talaria(t, t.TempDir(), t.TempDir(), srv, "", "-p", "check", "-o", out)
	if r.code != 1 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("-o written on failure: %v", err)
	}
}

// TestOutputFormatJSON: --output-format json prints one object at the
// end with the contract's fields; stream-json is --json.
func TestOutputFormatJSON(t *testing.T) {
	srv := pt.New(t)
	srv.Push(pt.ToolCalls(pt.Call{ID: "c1", Name: "search_files", Args: `{"pattern":"*.go","target":"files"}`}), pt.Text("no go files"))
	r := talaria(t, t.TempDir(), t.TempDir(), srv, "", "-p", "look", "--output-format", "json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var res map[string]any
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	if err := dec.Decode(&res); err != nil || dec.More() {
		t.Fatalf("stdout is not one object: %q %v", r.stdout, err)
	}
	for _, k := range []string{"type", "session_id", "exit_reason", "completed", "result", "usage", "cost_usd", "duration_ms", "api_calls"} {
		if _, ok := res[k]; !ok {
			t.Fatalf("result lacks %s: %v", k, res)
		}
	}
	if res["type"] != "result" || res["result"] != "no go files" || res["api_calls"] != 2.0 || res["completed"] != true ||
		res["exit_reason"] != "text_response(finish_reason=stop)" || res["cost_usd"].(float64) <= 0 {
		t.Fatalf("result %v", res)
	}
	srv.Push(pt.Text("streamed"))
	r = talaria(t, t.TempDir(), t.TempDir(), srv, "", "-p", "look", "--output-format", "stream-json")
	evs := events(t, r.stdout)
	if r.code != 0 || evs[0]["type"] != "session.started" || evs[len(evs)-1]["type"] != "turn.finished" {
		t.Fatalf("stream-json: exit %d, %v", r.code, evs)
	}
	r = talaria(t, t.TempDir(), t.TempDir(), srv, "", "-p", "look", "--output-format", "yaml")
	if r.code != 2 || !strings.Contains(r.stderr, "--output-format") {
		t.Fatalf("bad format: exit %d %s", r.code, r.stderr)
	}
}

// TestPeerAliasesEqualLongForms: --max-turns is --max-iterations and
// --permission-mode yolo is --yolo (same exit, same effect).
func TestPeerAliasesEqualLongForms(t *testing.T) {
	reason := func(args ...string) string {
		srv := pt.New(t)
		srv.Push(pt.ToolCalls(pt.Call{ID: "c1", Name: "search_files", Args: `{"pattern":"*","target":"files"}`}), pt.Text("summary"))
		r := talaria(t, t.TempDir(), t.TempDir(), srv, "", append([]string{"-p", "go", "--output-format", "json"}, args...)...)
		var res map[string]any
		_ = json.Unmarshal([]byte(r.stdout), &res)
		return fmt.Sprint(r.code, res["exit_reason"], res["result"])
	}
	if a, b := reason("--max-turns", "1"), reason("--max-iterations", "1"); a != b || !strings.Contains(a, "budget_exhausted") && !strings.Contains(a, "max_iterations") {
		t.Fatalf("--max-turns %q, --max-iterations %q", a, b)
	}
	wrote := func(args ...string) bool {
		srv := pt.New(t)
		cwd := t.TempDir()
		srv.Push(pt.ToolCalls(pt.Call{ID: "w", Name: "write_file", Args: `{"path":"out.txt","content":"x"}`}), pt.Text("done"))
		talaria(t, t.TempDir(), cwd, srv, "", append([]string{"-p", "write"}, args...)...)
		_, err := os.Stat(filepath.Join(cwd, "out.txt"))
		return err == nil
	}
	if !wrote("--permission-mode", "yolo") || !wrote("--yolo") || wrote("--permission-mode", "read-only") {
		t.Fatal("--permission-mode does not match the approvals modes")
	}
	r := talaria(t, t.TempDir(), t.TempDir(), pt.New(t), "", "-p", "x", "--permission-mode", "sometimes")
	if r.code != 2 || !strings.Contains(r.stderr, "--permission-mode") {
		t.Fatalf("bad mode: exit %d %s", r.code, r.stderr)
	}
}

// usageReply is a tool call whose usage says it cost a lot.
func usageReply(in, out int, calls ...pt.Call) pt.Reply {
	ch := pt.ToolCallChunks("tool_calls", calls...)
	ch[len(ch)-1] = fmt.Sprintf(`{"id":"chatcmpl-test","object":"chat.completion.chunk","created":1727346168,"model":"gpt-4.1","choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`, in, out, in+out)
	return pt.Reply{Chunks: ch}
}

// TestMaxBudgetUSDStopsBeforeTheCall: the first call costs $2.80 at
// gpt-4.1's list price; the second would pass $3, so it is not made:
// exit 1, budget_usd_exhausted. A model without a price is refused at
// start.
func TestMaxBudgetUSDStopsBeforeTheCall(t *testing.T) {
	srv := pt.New(t)
	srv.Push(usageReply(1_000_000, 100_000, pt.Call{ID: "c1", Name: "search_files", Args: `{"pattern":"*","target":"files"}`}))
	r := talaria(t, t.TempDir(), t.TempDir(), srv, "", "-p", "go", "--max-budget-usd", "3", "--output-format", "json")
	var res map[string]any
	_ = json.Unmarshal([]byte(r.stdout), &res)
	if r.code != 1 || res["exit_reason"] != "budget_usd_exhausted" || !strings.Contains(res["explanation"].(string), "--max-budget-usd") {
		t.Fatalf("exit %d, result %v, stderr %s", r.code, res, r.stderr)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("%d requests, want 1", n)
	}
	srv.Push(pt.Text("cheap"))
	r = talaria(t, t.TempDir(), t.TempDir(), srv, "", "-p", "go", "--max-budget-usd", "3")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "cheap" {
		t.Fatalf("within budget: exit %d %s", r.code, r.stderr)
	}
	r = talaria(t, t.TempDir(), t.TempDir(), srv, "", "-p", "go", "--max-budget-usd", "3", "--model", "my-local-model")
	if r.code != 2 || !strings.Contains(r.stderr, "price of model") {
		t.Fatalf("unknown price: exit %d %s", r.code, r.stderr)
	}
}

// TestAppendSystemPromptAndFork: --append-system-prompt lands in a new
// session's system prompt before its Model:/Provider: lines; with -c on
// an existing session it is refused unless --fork-session, which
// continues the history in a new session and leaves the old one as it was.
func TestAppendSystemPromptAndFork(t *testing.T) {
	srv := pt.New(t)
	srv.Push(pt.Text("first"), pt.Text("forked"))
	home, cwd := t.TempDir(), t.TempDir()
	r := talaria(t, home, cwd, srv, "", "-p", "one", "--append-system-prompt", "Always answer in French.", "--output-format", "json")
	var first map[string]any
	_ = json.Unmarshal([]byte(r.stdout), &first)
	sys := systemMessage(srv.Requests()[0])
	i, j := strings.Index(sys, "Always answer in French."), strings.LastIndex(sys, "\nModel: ")
	if r.code != 0 || i < 0 || j < i || !strings.HasSuffix(sys, "\nProvider: openai") {
		t.Fatalf("exit %d, system prompt %q", r.code, sys)
	}
	r = talaria(t, home, cwd, srv, "", "-p", "two", "-c", "--append-system-prompt", "x")
	if r.code != 2 || !strings.Contains(r.stderr, "new sessions only") {
		t.Fatalf("append on -c: exit %d %s", r.code, r.stderr)
	}
	r = talaria(t, home, cwd, srv, "", "-p", "two", "-c", "--fork-session", "--output-format", "json")
	var forked map[string]any
	_ = json.Unmarshal([]byte(r.stdout), &forked)
	if r.code != 0 || forked["session_id"] == first["session_id"] || forked["session_id"] == "" {
		t.Fatalf("fork: exit %d, %v vs %v: %s", r.code, forked["session_id"], first["session_id"], r.stderr)
	}
	req := srv.Requests()[1]
	if u := userMessages(req); len(u) != 2 || u[0] != "one" || u[1] != "two" || systemMessage(req) != sys {
		t.Fatalf("fork's request: %q", u)
	}
	r = talaria(t, home, cwd, nil, "", "export", first["session_id"].(string))
	if n := strings.Count(strings.TrimSpace(r.stdout), "\n") + 1; r.code != 0 || n != 2 {
		t.Fatalf("the forked-from session changed: %d messages: %s", n, r.stdout)
	}
	r = talaria(t, home, cwd, srv, "", "-p", "x", "--fork-session")
	if r.code != 2 || !strings.Contains(r.stderr, "--fork-session") {
		t.Fatalf("fork without -c: exit %d %s", r.code, r.stderr)
	}
}

// TestHeadlessNoProviderNamesKeyAndHelp: no provider, no key: one line
// naming the key variable and --help's section, exit 2.
func TestHeadlessNoProviderNamesKeyAndHelp(t *testing.T) {
	cmd := exec.Command(binary, "-p", "hi")
	cmd.Env, cmd.Dir = env(t.TempDir(), nil), t.TempDir()
	r := runCmd(t, cmd)
	if r.code != 2 {
		t.Skipf("a local model server answered the probe (exit %d)", r.code)
	}
	line := strings.TrimSpace(r.stderr)
	if strings.Contains(line, "\n") || !strings.Contains(line, "OPENAI_API_KEY") || !strings.Contains(line, `section "Providers and keys"`) {
		t.Fatalf("stderr %q", r.stderr)
	}
	cmd = exec.Command(binary, "--help")
	cmd.Env = env(t.TempDir(), nil)
	if r := runCmd(t, cmd); !strings.Contains(r.stdout, "\nProviders and keys:\n") {
		t.Fatal("--help has no Providers and keys section")
	}
}
