package app_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	pt "talaria/providers/providertest"
)

// acpWait bounds every wait of the ACP tests.
const acpWait = 60 * time.Second

// acpClient is the test's ACP client: it records every session/update and
// answers permission requests with the next of answers.
type acpClient struct {
	mu      sync.Mutex
	updates []sdk.SessionNotification
	asked   []sdk.RequestPermissionRequest
	answers []string // option ids, "" = cancelled
	notify  chan struct{}
}

func newACPClient() *acpClient { return &acpClient{notify: make(chan struct{}, 1)} }

func (c *acpClient) RequestPermission(_ context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.asked = append(c.asked, p)
	ans := "reject_once"
	if len(c.answers) > 0 {
		ans, c.answers = c.answers[0], c.answers[1:]
	}
	if ans == "" {
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}, nil
	}
	return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(sdk.PermissionOptionId(ans))}, nil
}

func (c *acpClient) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	c.mu.Lock()
	c.updates = append(c.updates, n)
	c.mu.Unlock()
	select {
	case c.notify <- struct{}{}:
	default:
	}
	return nil
}

func (c *acpClient) ReadTextFile(context.Context, sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	return sdk.ReadTextFileResponse{}, errors.New("not offered")
}

func (c *acpClient) WriteTextFile(context.Context, sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	return sdk.WriteTextFileResponse{}, errors.New("not offered")
}

func (c *acpClient) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, errors.New("not offered")
}

func (c *acpClient) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, errors.New("not offered")
}

func (c *acpClient) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, errors.New("not offered")
}

func (c *acpClient) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, errors.New("not offered")
}

func (c *acpClient) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, errors.New("not offered")
}

// take returns the updates so far and forgets them.
func (c *acpClient) take() []sdk.SessionNotification {
	c.mu.Lock()
	defer c.mu.Unlock()
	u := c.updates
	c.updates = nil
	return u
}

// waitFor waits (bounded) for an update ok accepts.
func (c *acpClient) waitFor(t testing.TB, ok func(sdk.SessionUpdate) bool) {
	t.Helper()
	deadline := time.After(acpWait)
	for {
		c.mu.Lock()
		for _, u := range c.updates {
			if ok(u.Update) {
				c.mu.Unlock()
				return
			}
		}
		c.mu.Unlock()
		select {
		case <-c.notify:
		case <-deadline:
			t.Fatal("the update did not arrive")
		}
	}
}

// acpAgent is a running `talaria acp` and the client connected to it.
type acpAgent struct {
	conn   *sdk.ClientSideConnection
	client *acpClient
	stderr *bytes.Buffer
	stdin  io.WriteCloser
	cmd    *exec.Cmd
}

// startACP spawns `talaria [flags] acp` in cwd with a provider at srv and
// initializes the connection.
func startACP(t *testing.T, home, cwd string, srv *pt.Server, flags ...string) *acpAgent {
	t.Helper()
	c := newACPClient()
	return startACPClient(t, home, cwd, srv, c, c, sdk.ClientCapabilities{}, flags...)
}

// startACPClient is startACP with the client's methods and capabilities
// given: as answers requests (it may wrap c, which records updates).
func startACPClient(t *testing.T, home, cwd string, srv *pt.Server, c *acpClient, as sdk.Client, caps sdk.ClientCapabilities, flags ...string) *acpAgent {
	t.Helper()
	cmd := exec.Command(binary, append(flags, "acp")...)
	cmd.Env = env(home, srv)
	cmd.Dir = cwd
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	a := &acpAgent{client: c, stderr: &bytes.Buffer{}, stdin: stdin, cmd: cmd}
	cmd.Stderr = a.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Both directions are kept: every agent message is checked against
	// the protocol's schema once the process is gone.
	sent, got := &wireLog{}, &wireLog{}
	a.conn = sdk.NewClientSideConnection(as, io.MultiWriter(stdin, sent), io.TeeReader(stdout, got))
	schema := loadACPSchema(t)
	t.Cleanup(func() {
		a.stop(t)
		checkACPWire(t, schema, sent, got)
	})
	ctx, cancel := context.WithTimeout(context.Background(), acpWait)
	defer cancel()
	init, err := a.conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientInfo: &sdk.Implementation{Name: "talaria-test", Version: "1"}, ClientCapabilities: caps})
	if err != nil {
		t.Fatalf("initialize: %v\nstderr: %s", err, a.stderr)
	}
	if init.ProtocolVersion != 1 || !init.AgentCapabilities.LoadSession || !init.AgentCapabilities.PromptCapabilities.EmbeddedContext || !init.AgentCapabilities.PromptCapabilities.Image ||
		!init.AgentCapabilities.McpCapabilities.Http || init.AgentInfo == nil || init.AgentInfo.Name != "talaria" {
		t.Fatalf("initialize: %+v", init)
	}
	return a
}

// stop closes stdin and waits (bounded) for the process to exit.
func (a *acpAgent) stop(t *testing.T) {
	_ = a.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- a.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil && !strings.Contains(err.Error(), "Wait was already called") {
			t.Errorf("talaria acp exited with %v\nstderr: %s", err, a.stderr)
		}
	case <-time.After(acpWait):
		_ = a.cmd.Process.Kill()
		<-done
		t.Errorf("talaria acp did not exit after stdin closed")
	}
}

func acpCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), acpWait)
	t.Cleanup(cancel)
	return ctx
}

func textPrompt(s string) []sdk.ContentBlock { return []sdk.ContentBlock{sdk.TextBlock(s)} }

// messageText joins the agent_message_chunk texts of updates.
func messageText(us []sdk.SessionNotification) string {
	var b strings.Builder
	for _, u := range us {
		if c := u.Update.AgentMessageChunk; c != nil && c.Content.Text != nil {
			b.WriteString(c.Content.Text.Text)
		}
	}
	return b.String()
}

// toolUpdates returns the tool_call and tool_call_update payloads of id.
func toolUpdates(us []sdk.SessionNotification, id string) (start *sdk.SessionUpdateToolCall, updates []*sdk.SessionToolCallUpdate) {
	for _, u := range us {
		if tc := u.Update.ToolCall; tc != nil && string(tc.ToolCallId) == id {
			start = tc
		}
		if tu := u.Update.ToolCallUpdate; tu != nil && string(tu.ToolCallId) == id {
			updates = append(updates, tu)
		}
	}
	return start, updates
}

func lastStatus(updates []*sdk.SessionToolCallUpdate) sdk.ToolCallStatus {
	var st sdk.ToolCallStatus
	for _, u := range updates {
		if u.Status != nil {
			st = *u.Status
		}
	}
	return st
}

// TestACPPromptPermissionCancelLoad drives `talaria acp` as an editor
// would: a write the user allows (the diff streams back), one the user
// rejects (the model reads the denial, the turn goes on), a command with
// live output, a cancel during a slow stream, then session/load of the
// session in a second process replays its history.
func TestACPPromptPermissionCancelLoad(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	srv := pt.New(t)
	a := startACP(t, home, cwd, srv)
	ctx := acpCtx(t)
	sess, err := a.conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: cwd, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v\nstderr: %s", err, a.stderr)
	}
	if sess.Modes == nil || sess.Modes.CurrentModeId != "ask" || len(sess.Modes.AvailableModes) != 4 {
		t.Fatalf("modes: %+v", sess.Modes)
	}

	// 1. A write, allowed.
	srv.Push(pt.ToolCalls(pt.Call{ID: "call_w1", Name: "write_file", Args: `{"path":"out.txt","content":"hello\n"}`}), pt.Text("Wrote out.txt."))
	a.client.answers = []string{"allow_once"}
	resp, err := a.conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: textPrompt("write hello to out.txt")})
	if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt 1: %+v %v\nstderr: %s", resp, err, a.stderr)
	}
	us := a.client.take()
	if got := messageText(us); got != "Wrote out.txt." {
		t.Fatalf("agent_message_chunk text %q", got)
	}
	if data, err := os.ReadFile(filepath.Join(cwd, "out.txt")); err != nil || string(data) != "hello\n" {
		t.Fatalf("out.txt: %q %v", data, err)
	}
	a.client.mu.Lock()
	asked := a.client.asked
	a.client.asked = nil
	a.client.mu.Unlock()
	if len(asked) != 1 || asked[0].ToolCall.ToolCallId != "call_w1" || len(asked[0].Options) != 4 {
		t.Fatalf("permission requests: %+v", asked)
	}
	kinds := map[sdk.PermissionOptionKind]bool{}
	for _, o := range asked[0].Options {
		kinds[o.Kind] = true
	}
	if len(kinds) != 4 {
		t.Fatalf("options: %+v", asked[0].Options)
	}
	start, ups := toolUpdates(us, "call_w1")
	if start == nil || start.Kind != sdk.ToolKindEdit || len(start.Locations) != 1 || start.Locations[0].Path != filepath.Join(cwd, "out.txt") {
		t.Fatalf("tool_call: %+v", start)
	}
	if lastStatus(ups) != sdk.ToolCallStatusCompleted {
		t.Fatalf("tool_call_update status: %v", lastStatus(ups))
	}
	var diff *sdk.ToolCallContentDiff
	for _, u := range ups {
		for _, c := range u.Content {
			if c.Diff != nil {
				diff = c.Diff
			}
		}
	}
	if diff == nil || diff.NewText != "hello\n" || diff.Path != filepath.Join(cwd, "out.txt") {
		t.Fatalf("diff content: %+v", diff)
	}

	// 2. A write, rejected: a denial the model reads; the turn goes on.
	srv.Push(pt.ToolCalls(pt.Call{ID: "call_w2", Name: "write_file", Args: `{"path":"no.txt","content":"x"}`}), pt.Text("Understood, I left it."))
	a.client.answers = []string{"reject_once"}
	resp, err = a.conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: textPrompt("write no.txt")})
	if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt 2: %+v %v", resp, err)
	}
	us = a.client.take()
	if _, err := os.Stat(filepath.Join(cwd, "no.txt")); !os.IsNotExist(err) {
		t.Fatalf("a rejected write reached the disk: %v", err)
	}
	if _, ups := toolUpdates(us, "call_w2"); lastStatus(ups) != sdk.ToolCallStatusFailed {
		t.Fatalf("rejected call status: %v", lastStatus(ups))
	}
	if got := messageText(us); got != "Understood, I left it." {
		t.Fatalf("answer after the denial: %q", got)
	}

	// 3. A command with live output, allowed for the session.
	srv.Push(pt.ToolCalls(pt.Call{ID: "call_t", Name: "terminal", Args: `{"command":"echo live-output-42"}`}), pt.Text("Ran it."))
	a.client.answers = []string{"allow_always"}
	resp, err = a.conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: textPrompt("run echo")})
	if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt 3: %+v %v", resp, err)
	}
	us = a.client.take()
	start, ups = toolUpdates(us, "call_t")
	if start == nil || start.Kind != sdk.ToolKindExecute || lastStatus(ups) != sdk.ToolCallStatusCompleted {
		t.Fatalf("terminal call: %+v status %v", start, lastStatus(ups))
	}
	sawOutput := false
	for _, u := range ups {
		for _, c := range u.Content {
			if c.Content != nil && c.Content.Content.Text != nil && strings.Contains(c.Content.Content.Text.Text, "live-output-42") {
				sawOutput = true
			}
		}
	}
	if !sawOutput {
		t.Fatalf("no output of the command in the tool_call_updates")
	}

	// 4. session/cancel during a slow stream: the prompt ends cancelled.
	hold := make(chan struct{})
	defer close(hold)
	for drained := false; !drained; { // the earlier requests' starts
		select {
		case <-srv.Started():
		default:
			drained = true
		}
	}
	srv.Push(pt.Reply{Chunks: pt.TextChunks("streaming slowly", "stop"), Hold: hold})
	type result struct {
		resp sdk.PromptResponse
		err  error
	}
	done := make(chan result, 1)
	go func() {
		r, err := a.conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: textPrompt("talk slowly")})
		done <- result{r, err}
	}()
	select {
	case <-srv.Started(): // the stream has begun and holds
	case <-time.After(acpWait):
		t.Fatal("the slow request did not start")
	}
	// A second prompt while one runs is an error; the first goes on.
	if _, err := a.conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: textPrompt("again")}); err == nil {
		t.Fatal("a prompt while one runs was accepted")
	}
	if err := a.conn.Cancel(ctx, sdk.CancelNotification{SessionId: sess.SessionId}); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-done:
		if r.err != nil || r.resp.StopReason != sdk.StopReasonCancelled {
			t.Fatalf("cancelled prompt: %+v %v", r.resp, r.err)
		}
	case <-time.After(acpWait):
		t.Fatal("the cancelled prompt did not answer")
	}
	a.client.take()
	a.stop(t)

	// 5. session/load in a new process replays the history, then answers.
	b := startACP(t, home, cwd, srv)
	if _, err := b.conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: sess.SessionId, Cwd: cwd, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatalf("session/load: %v\nstderr: %s", err, b.stderr)
	}
	us = b.client.take()
	var users []string
	for _, u := range us {
		if c := u.Update.UserMessageChunk; c != nil && c.Content.Text != nil {
			users = append(users, c.Content.Text.Text)
		}
	}
	if len(users) < 3 || users[0] != "write hello to out.txt" {
		t.Fatalf("replayed user messages: %q", users)
	}
	if got := messageText(us); !strings.Contains(got, "Wrote out.txt.") || !strings.Contains(got, "Ran it.") {
		t.Fatalf("replayed answers: %q", got)
	}
	if start, ups := toolUpdates(us, "call_w1"); start == nil || lastStatus(ups) != sdk.ToolCallStatusCompleted {
		t.Fatalf("replayed tool call: %+v %v", start, lastStatus(ups))
	}
}
