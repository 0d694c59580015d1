package ollama

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"talaria/providers"
	"talaria/providers/providertest"
)

// nativeServer answers /api/chat with body and records the request.
func nativeServer(t *testing.T, status int, body string) (providers.Transport, *providertest.WireServer) {
	t.Helper()
	srv := providertest.StartWire(t, providertest.WireReply{Status: status, Body: []byte(body), Headers: map[string]string{"Content-Type": "application/x-ndjson"}})
	tr, err := NewChat(providers.Endpoint{Provider: "ollama", Model: "qwen3", BaseURL: srv.URL + "/v1", HTTPClient: srv.Client(), OllamaNumCtx: 65536})
	if err != nil {
		t.Fatal(err)
	}
	return tr, srv
}

// The stream of a reply that thinks, writes and calls two tools, in the
// shape Ollama's /api/chat streams it (one whole call per chunk).
const toolStream = `{"model":"qwen3","created_at":"2026-01-02T10:00:00Z","message":{"role":"assistant","content":"","thinking":"Need the file."},"done":false}
{"model":"qwen3","created_at":"2026-01-02T10:00:01Z","message":{"role":"assistant","content":"Reading."},"done":false}
{"model":"qwen3","created_at":"2026-01-02T10:00:02Z","message":{"role":"assistant","content":"","tool_calls":[{"id":"call_k3x9a0qz","function":{"index":0,"name":"read_file","arguments":{"path":"go.mod"}}}]},"done":false}
{"model":"qwen3","created_at":"2026-01-02T10:00:02Z","message":{"role":"assistant","content":"","tool_calls":[{"function":{"index":1,"name":"list_dir","arguments":{}}}]},"done":false}
{"model":"qwen3","created_at":"2026-01-02T10:00:03Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","total_duration":4883583458,"prompt_eval_count":26,"eval_count":41}
`

// TestNativeChat: the request carries options.num_ctx, num_predict, the
// tools, the calls' arguments as objects and the results' tool names;
// the answer's thinking, text, calls and usage are assembled.
func TestNativeChat(t *testing.T) {
	tr, srv := nativeServer(t, 200, toolStream)
	req := providers.Request{
		MaxTokens: 2048,
		Messages: []providers.Message{
			{Role: providers.RoleSystem, Content: "sys"},
			{Role: providers.RoleUser, Content: "look"},
			{Role: providers.RoleAssistant, ToolCalls: []providers.ToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"a"}`}, {ID: "c2", Name: "bad", Arguments: `{"cut`}}},
			{Role: providers.RoleTool, ToolCallID: "c1", ToolName: "read_file", Content: "A", Images: []providers.Image{{MIME: "image/png", Data: []byte("png")}}},
			{Role: providers.RoleTool, ToolCallID: "c2", ToolName: "bad"},
		},
		Tools: []providers.ToolSpec{{Name: "read_file", Description: "read", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}},
	}
	var log providertest.DeltaLog
	resp, err := tr.Stream(context.Background(), req, log.Add)
	if err != nil {
		t.Fatal(err)
	}
	providertest.CheckAnswer(t, resp, providers.Response{
		Content: "Reading.", Reasoning: "Need the file.",
		ToolCalls: []providers.ToolCall{
			{ID: "call_k3x9a0qz", Name: "read_file", Arguments: `{"path":"go.mod"}`},
			{ID: "call_1", Name: "list_dir", Arguments: `{}`},
		},
		FinishReason: providers.FinishToolCalls, RawFinishReason: "stop",
		Usage: providers.Usage{InputTokens: 26, OutputTokens: 41}, Model: "qwen3",
	}, &log)
	c := srv.TakeRequest(t)
	if c.Path != "/api/chat" {
		t.Fatalf("path %s", c.Path)
	}
	var body struct {
		Model    string         `json:"model"`
		Stream   bool           `json:"stream"`
		Options  map[string]int `json:"options"`
		Tools    []chatTool     `json:"tools"`
		Messages []chatMessage  `json:"messages"`
	}
	if err := json.Unmarshal(c.Raw, &body); err != nil {
		t.Fatal(err)
	}
	if body.Model != "qwen3" || !body.Stream || !reflect.DeepEqual(body.Options, map[string]int{"num_ctx": 65536, "num_predict": 2048}) {
		t.Fatalf("body %s", c.Raw)
	}
	if len(body.Tools) != 1 || body.Tools[0].Type != "function" || body.Tools[0].Function.Name != "read_file" {
		t.Fatalf("tools %+v", body.Tools)
	}
	m := body.Messages
	if len(m) != 5 || string(m[2].ToolCalls[0].Function.Arguments) != `{"path":"a"}` || string(m[2].ToolCalls[1].Function.Arguments) != `{}` {
		t.Fatalf("assistant %+v", m)
	}
	if m[3].ToolName != "read_file" || m[3].Content != "A" || m[4].Content != providers.PlaceholderToolOutput {
		t.Fatalf("tool results %+v", m[3:])
	}
}

// TestNativeChatErrors: an HTTP error body, an error line inside the
// stream, a stream cut before done and a line that is not JSON.
func TestNativeChatErrors(t *testing.T) {
	for _, c := range []struct {
		name, body, want string
		status           int
		mid              bool
	}{
		{name: "model not found", status: 404, body: `{"error":"model 'qwen3' not found"}`, want: "model 'qwen3' not found"},
		{name: "error line", status: 200, body: `{"model":"qwen3","message":{"role":"assistant","content":"Hi"},"done":false}` + "\n" + `{"error":"an error was encountered while running the model: unexpected EOF"}` + "\n", want: "unexpected EOF", mid: true},
		{name: "cut before done", status: 200, body: `{"model":"qwen3","message":{"role":"assistant","content":"Hi"},"done":false}` + "\n", want: "done", mid: true},
		{name: "not JSON", status: 200, body: "<html>\n", want: "cannot decode", mid: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr, _ := nativeServer(t, c.status, c.body)
			resp, err := tr.Stream(context.Background(), providertest.SimpleRequest(), nil)
			ae := providertest.AsAPIError(t, err)
			if !strings.Contains(err.Error(), c.want) || ae.MidStream != c.mid {
				t.Fatalf("err %v (mid %v)", err, ae.MidStream)
			}
			if c.mid && c.name != "not JSON" && (resp == nil || resp.Content != "Hi") {
				t.Fatalf("partial %+v", resp)
			}
		})
	}
}

// TestNativeLineCap: a line longer than the cap is an error, not a
// buffer without end.
func TestNativeLineCap(t *testing.T) {
	r := io.MultiReader(strings.NewReader(`{"x":"`), strings.NewReader(strings.Repeat("a", 33<<20)))
	tr := &chatTransport{ep: providers.Endpoint{Provider: "ollama"}}
	_, err := tr.read(context.Background(), nil, r, nil)
	if !errors.Is(err, bufio.ErrTooLong) {
		t.Fatalf("err %v", err)
	}
}
