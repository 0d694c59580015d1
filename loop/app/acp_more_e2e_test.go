package app_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	pt "talaria/providers/providertest"
	"talaria/tools/mcp/mcptest"
)

// TestACPBadInput sends what a broken client might: each is a JSON-RPC
// error and the server goes on answering.
func TestACPBadInput(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	srv := pt.New(t)
	cmd := exec.Command(binary, "acp")
	cmd.Env = env(home, srv)
	cmd.Dir = cwd
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sent, got := &wireLog{}, &wireLog{}
	defer func() {
		_ = stdin.Close()
		_ = cmd.Wait()
		checkACPWire(t, loadACPSchema(t), sent, got)
	}()
	lines := make(chan map[string]any, 16)
	go func() {
		sc := bufio.NewScanner(io.TeeReader(stdout, got))
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				m = map[string]any{"not-json": sc.Text()}
			}
			lines <- m
		}
		close(lines)
	}()
	next := func(what string) map[string]any {
		t.Helper()
		select {
		case m, ok := <-lines:
			if !ok {
				t.Fatalf("%s: stdout closed\nstderr: %s", what, stderr.String())
			}
			if _, bad := m["not-json"]; bad {
				t.Fatalf("%s: stdout carried a non-protocol line: %v", what, m)
			}
			return m
		case <-time.After(acpWait):
			t.Fatalf("%s: no answer", what)
		}
		return nil
	}
	code := func(m map[string]any) float64 {
		e, _ := m["error"].(map[string]any)
		c, _ := e["code"].(float64)
		return c
	}
	send := func(s string) {
		_, _ = stdin.Write([]byte(s + "\n"))
		_, _ = sent.Write([]byte(s + "\n"))
	}

	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}`) // cut short
	if m := next("malformed line"); code(m) != -32700 {
		t.Fatalf("malformed line: %v", m)
	}
	send(`{"jsonrpc":"2.0","id":2,"method":"no/such/method","params":{}}`)
	if m := next("unknown method"); code(m) != -32601 || m["id"] != float64(2) {
		t.Fatalf("unknown method: %v", m)
	}
	send(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"nope","prompt":[{"type":"text","text":"hi"}]}}`)
	if m := next("unknown session"); code(m) == 0 || m["id"] != float64(3) || !strings.Contains(string(mustJSON(m)), "unknown session") {
		t.Fatalf("unknown session: %v", m)
	}
	send(`{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":1}}`)
	if m := next("initialize after errors"); m["id"] != float64(4) || m["result"] == nil {
		t.Fatalf("initialize after the errors: %v", m)
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// TestACPModesPlanAndClientMCP: session/set_mode yolo is reported and then
// nothing is asked; the todo tool's list arrives as a plan; an MCP server
// the client passes with session/new joins the session's tools.
func TestACPModesPlanAndClientMCP(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	srv := pt.New(t)
	a := startACP(t, home, cwd, srv)
	ctx := acpCtx(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sess, err := a.conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: cwd, McpServers: []sdk.McpServer{{Stdio: &sdk.McpServerStdio{
		Name: "ed", Command: self, Args: []string{"-test.run=^$"}, Env: []sdk.EnvVariable{{Name: mcptest.EnvServer, Value: "1"}}}}}})
	if err != nil {
		t.Fatalf("session/new: %v\nstderr: %s", err, a.stderr)
	}
	if _, err := a.conn.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: sess.SessionId, ModeId: "yolo"}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.conn.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: sess.SessionId, ModeId: "warp"}); err == nil {
		t.Fatal("an unknown mode was taken")
	}
	srv.Push(
		pt.ToolCalls(pt.Call{ID: "call_m", Name: "ed__echo", Args: `{"text":"hi-from-editor"}`},
			pt.Call{ID: "call_p", Name: "todo", Args: `{"todos":[{"id":"1","content":"look","status":"completed"},{"id":"2","content":"fix","status":"in_progress"}]}`}),
		pt.ToolCalls(pt.Call{ID: "call_y", Name: "write_file", Args: `{"path":"y.txt","content":"yolo\n"}`}),
		pt.Text("All done."),
	)
	resp, err := a.conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: textPrompt("go")})
	if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v\nstderr: %s", resp, err, a.stderr)
	}
	us := a.client.take()
	var mode sdk.SessionModeId
	var plan []sdk.PlanEntry
	for _, u := range us {
		if m := u.Update.CurrentModeUpdate; m != nil {
			mode = m.CurrentModeId
		}
		if p := u.Update.Plan; p != nil {
			plan = p.Entries
		}
	}
	if mode != "yolo" {
		t.Fatalf("current_mode_update: %q", mode)
	}
	if len(plan) != 2 || plan[0].Content != "look" || plan[0].Status != sdk.PlanEntryStatusCompleted || plan[1].Status != sdk.PlanEntryStatusInProgress {
		t.Fatalf("plan: %+v", plan)
	}
	a.client.mu.Lock()
	asked := len(a.client.asked)
	a.client.mu.Unlock()
	if asked != 0 {
		t.Fatalf("%d permission requests in yolo mode", asked)
	}
	if data, err := os.ReadFile(filepath.Join(cwd, "y.txt")); err != nil || string(data) != "yolo\n" {
		t.Fatalf("y.txt: %q %v", data, err)
	}
	_, ups := toolUpdates(us, "call_m")
	echoed := false
	for _, u := range ups {
		for _, c := range u.Content {
			if c.Content != nil && c.Content.Content.Text != nil && strings.Contains(c.Content.Content.Text.Text, "echo: hi-from-editor") {
				echoed = true
			}
		}
	}
	if !echoed || lastStatus(ups) != sdk.ToolCallStatusCompleted {
		t.Fatalf("the client's MCP server did not answer: %+v", ups)
	}
}

// TestACPErrorsBeforeOutput: a provider error before anything was
// streamed is a JSON-RPC error carrying talaria's explanation, and the
// session takes the next prompt; without a provider, session/new says
// how to configure one.
func TestACPErrorsBeforeOutput(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	srv := pt.New(t)
	a := startACP(t, home, cwd, srv)
	ctx := acpCtx(t)
	sess, err := a.conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: cwd, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	srv.Push(pt.Error(400, `{"error":{"message":"model zebra-9 does not exist","type":"invalid_request_error"}}`, nil))
	_, err = a.conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: textPrompt("hi")})
	var re *sdk.RequestError
	if !errors.As(err, &re) || !strings.HasPrefix(re.Message, "talaria: ") || len(re.Message) < 20 {
		t.Fatalf("prompt with a provider error: %v", err)
	}
	t.Logf("provider error: %s", re.Message)
	srv.Push(pt.Text("fine now"))
	if resp, err := a.conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: textPrompt("again")}); err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("the prompt after the error: %+v %v", resp, err)
	}

	b := startACP(t, t.TempDir(), cwd, nil)
	_, err = b.conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: cwd, McpServers: []sdk.McpServer{}})
	if !errors.As(err, &re) || !strings.Contains(strings.ToLower(re.Message), "provider") {
		t.Fatalf("session/new without a provider: %v", err)
	}
	t.Logf("no provider: %s", re.Message)
	if _, err := b.conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: "", McpServers: []sdk.McpServer{}}); err == nil {
		t.Fatal("an empty cwd was taken")
	}
}
