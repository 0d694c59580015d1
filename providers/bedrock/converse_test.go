package bedrock

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"testing"
	"time"

	"talaria/providers"
	"talaria/providers/providertest"
)

// TestConverseFixtures sends a request to a server answering with each
// constructed Converse body (testdata/README.md) and checks the assembled
// response and the deltas: one for the whole reasoning, one for the whole
// text, then one per tool call.
func TestConverseFixtures(t *testing.T) {
	tests := []struct {
		name, fixture string
		content       string
		reasoning     string
		replay        string
		calls         []providers.ToolCall
		finish, raw   string
		usage         providers.Usage
	}{
		{
			name: "text with signed reasoning and cache reads", fixture: "converse_text_reasoning.json",
			content:   "The capital of Australia is Canberra.",
			reasoning: "The user asks for the capital of Australia. It is Canberra, not Sydney.",
			replay:    `{"bedrock_converse":[{"reasoningText":{"text":"The user asks for the capital of Australia. It is Canberra, not Sydney.","signature":"ErcBCkgIBhABGAIiQHk3dGr0wq6c9m0KkN1c7mXbqXfNqk8s2kq1zJ9yGbZ2bq9YwzvH3l8Xj8oPp6Qe1xY4h1yq0w9Kx2R7mP5d3sQ"}}]}`,
			finish:    "stop", raw: "end_turn",
			usage: providers.Usage{InputTokens: 24, OutputTokens: 61, CacheReadTokens: 1536},
		},
		{
			name: "text and two tool calls, cache writes", fixture: "converse_tool_use.json",
			content: "I'll look at both files.",
			calls: []providers.ToolCall{
				{ID: "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", Name: "read_file", Arguments: `{"path":"go.mod","limit":50}`},
				{ID: "tooluse_3pQn0XbWTwSOgZkOQqXk1A", Name: "list_dir", Arguments: `{}`},
			},
			finish: "tool_calls", raw: "tool_use",
			usage: providers.Usage{InputTokens: 412, OutputTokens: 96, CacheWriteTokens: 2048},
		},
		{
			name: "guardrail intervened", fixture: "converse_guardrail.json",
			content: "Sorry, the model cannot answer this question.", finish: "content_filter", raw: "guardrail_intervened",
			usage: providers.Usage{InputTokens: 18},
		},
		{
			name: "content filtered, empty content", fixture: "converse_content_filtered.json",
			finish: "content_filter", raw: "content_filtered",
			usage: providers.Usage{InputTokens: 30, OutputTokens: 4},
		},
		{
			name: "max tokens", fixture: "converse_max_tokens.json",
			content: "Here is the first part of the list: 1. alpha, 2. be", finish: "length", raw: "max_tokens",
			usage: providers.Usage{InputTokens: 15, OutputTokens: 16},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := startServer(t, providertest.WireReply{Body: providertest.ReadFixture(t, tc.fixture)})
			tr := newTestTransport(t, srv, false)
			var log deltaLog
			resp, err := tr.Stream(context.Background(), providertest.SimpleRequest(), log.add)
			if err != nil {
				t.Fatalf("Stream: %v", err)
			}
			providertest.CheckAnswer(t, resp, providers.Response{Content: tc.content, Reasoning: tc.reasoning, ToolCalls: tc.calls,
				FinishReason: tc.finish, RawFinishReason: tc.raw, Usage: tc.usage, Model: tr.ep.Model}, nil)
			if string(resp.ReasoningReplay) != tc.replay {
				t.Errorf("replay %s, want %s", resp.ReasoningReplay, tc.replay)
			}
			if (tc.content == "") != (len(log.texts) == 0) || len(log.texts) > 1 || (len(log.texts) == 1 && log.texts[0] != tc.content) {
				t.Errorf("text deltas %q, want one with the whole text", log.texts)
			}
			if (tc.reasoning == "") != (len(log.reasonings) == 0) || len(log.reasonings) > 1 {
				t.Errorf("reasoning deltas %q, want at most one", log.reasonings)
			}
			if len(log.tools) != len(tc.calls) {
				t.Errorf("tool deltas %+v", log.tools)
			}
			for i, d := range log.tools {
				if d.ToolIndex != i || d.ToolName != tc.calls[i].Name {
					t.Errorf("tool delta %d = %+v", i, d)
				}
			}
		})
	}
}

// TestConverseRequestWire checks the URL, headers and body of a converse
// call.
func TestConverseRequestWire(t *testing.T) {
	srv, reqs := startServer(t, providertest.WireReply{Body: providertest.ReadFixture(t, "converse_max_tokens.json")})
	tr := newTestTransport(t, srv, false)
	req := providers.Request{
		Model:     "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-sonnet-4-5-20250929-v1:0",
		Messages:  []providers.Message{{Role: providers.RoleSystem, Content: "Be brief."}, {Role: providers.RoleUser, Content: "hi"}},
		MaxTokens: 256,
	}
	if _, err := tr.Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	c := <-reqs
	if want := "/model/arn:aws:bedrock:us-east-1:123456789012:inference-profile%2Fus.anthropic.claude-sonnet-4-5-20250929-v1:0/converse"; c.RawPath != want {
		t.Errorf("path %s, want %s", c.RawPath, want)
	}
	if got := c.Header.Get("Authorization"); got != "Bearer ABSKQmVkcm9ja0FQSUtleS10ZXN0" {
		t.Errorf("Authorization %q", got)
	}
	if c.Header.Get("Content-Type") != "application/json" || c.Header.Get("Accept") != "application/json" {
		t.Errorf("headers %v", c.Header)
	}
	want := `{"messages":[{"role":"user","content":[{"text":"hi"}]}],"system":[{"text":"Be brief."}],"inferenceConfig":{"maxTokens":256}}`
	if string(c.Raw) != want {
		t.Errorf("body\n%s\nwant\n%s", c.Raw, want)
	}
}

// TestConverseCutBody: a body cut inside its JSON is a MidStream error
// wrapping io.ErrUnexpectedEOF, with an (empty) partial response.
func TestConverseCutBody(t *testing.T) {
	full := providertest.ReadFixture(t, "converse_tool_use.json")
	srv, _ := startServer(t, providertest.WireReply{Body: full[:len(full)/2]})
	tr := newTestTransport(t, srv, false)
	resp, err := tr.Stream(context.Background(), providertest.SimpleRequest(), nil)
	ae := providertest.AsAPIError(t, err)
	if !ae.MidStream || ae.Status != 0 || !errors.Is(err, io.ErrUnexpectedEOF) || resp == nil {
		t.Errorf("resp %+v err %+v", resp, ae)
	}
}

// TestConverseNotJSON: a 200 body that is no Converse JSON (a proxy page)
// is an error that says so.
func TestConverseNotJSON(t *testing.T) {
	srv, _ := startServer(t, providertest.WireReply{Headers: map[string]string{"Content-Type": "text/html"}, Body: []byte("<html><body>Sign in</body></html>")})
	tr := newTestTransport(t, srv, false)
	resp, err := tr.Stream(context.Background(), providertest.SimpleRequest(), nil)
	ae := providertest.AsAPIError(t, err)
	if resp != nil || ae.Status != 200 || ae.MidStream || ae.Body == "" || ae.Message == "" {
		t.Errorf("resp %+v err %+v", resp, ae)
	}
}

// TestConverseCancel: cancelling the context while the server holds the
// answer ends Stream with an error that errors.Is recognizes.
func TestConverseCancel(t *testing.T) {
	for _, stream := range []bool{false, true} {
		hold := make(chan struct{})
		srv, _ := startServer(t, providertest.WireReply{Body: providertest.ReadFixture(t, "converse_max_tokens.json"), Hold: hold})
		tr := newTestTransport(t, srv, stream)
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		_, err := tr.Stream(ctx, providertest.SimpleRequest(), nil)
		close(hold)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("stream=%v: err %v, want context.Canceled", stream, err)
		}
		providertest.AsAPIError(t, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	srv, _ := startServer(t, providertest.WireReply{})
	_, err := newTestTransport(t, srv, false).Stream(ctx, providertest.SimpleRequest(), nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("pre-cancelled: %v", err)
	}
}

// TestNormalize covers whole Converse bodies (the converse, not
// converse-stream, answer).
func TestNormalize(t *testing.T) {
	for _, tc := range []struct {
		fixture     string
		calls       int
		read, write int
	}{{"converse_tool_use.json", 2, 0, 2048}, {"converse_text_reasoning.json", 0, 1536, 0}} {
		var cr converseResponse
		if err := json.Unmarshal(providertest.ReadFixture(t, tc.fixture), &cr); err != nil {
			t.Fatal(err)
		}
		resp := normalize(&cr)
		if len(resp.ToolCalls) != tc.calls || resp.Usage.CacheReadTokens != tc.read || resp.Usage.CacheWriteTokens != tc.write || resp.Empty() {
			t.Errorf("%s: %+v", tc.fixture, resp)
		}
	}
}

// TestReasoningEffort checks issue 18 item 4's mapping on Bedrock:
// Anthropic models get extended thinking through
// additionalModelRequestFields with maxTokens above the budget; other
// models (and Claude 3.5) get nothing.
func TestReasoningEffort(t *testing.T) {
	for _, tc := range []struct {
		model, effort string
		maxTokens     int
		budget, limit int
	}{
		{"us.anthropic.claude-sonnet-4-5-20250929-v1:0", "medium", 0, 4096, 4096 + thinkingAnswerTokens},
		{"anthropic.claude-3-7-sonnet-20250219-v1:0", "high", 32000, 16384, 32000},
		{"anthropic.claude-3-5-sonnet-20241022-v2:0", "high", 0, 0, 0},
		{"amazon.nova-pro-v1:0", "high", 0, 0, 0},
		{"us.anthropic.claude-sonnet-4-5-20250929-v1:0", "", 0, 0, 0},
	} {
		req := providertest.SimpleRequest()
		req.ReasoningEffort, req.MaxTokens = tc.effort, tc.maxTokens
		body, err := buildRequest(req, tc.model)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(body)
		var got struct {
			Inference *struct {
				MaxTokens int `json:"maxTokens"`
			} `json:"inferenceConfig"`
			Extra map[string]map[string]any `json:"additionalModelRequestFields"`
		}
		_ = json.Unmarshal(raw, &got)
		if tc.budget == 0 {
			if got.Extra != nil {
				t.Errorf("%s/%q: unexpected %s", tc.model, tc.effort, raw)
			}
			continue
		}
		th := got.Extra["thinking"]
		if th["type"] != "enabled" || th["budget_tokens"] != float64(tc.budget) || got.Inference == nil || got.Inference.MaxTokens != tc.limit {
			t.Errorf("%s/%q: body %s", tc.model, tc.effort, raw)
		}
	}
}

// TestMapFinishReason covers every documented stopReason.
func TestMapFinishReason(t *testing.T) {
	for wire, want := range map[string]string{
		"": "", "end_turn": "stop", "stop_sequence": "stop", "tool_use": "tool_calls",
		"max_tokens": "length", "model_context_window_exceeded": "length",
		"guardrail_intervened": "content_filter", "content_filtered": "content_filter",
		"malformed_model_output": "error", "malformed_tool_use": "error", "something_new": "stop",
	} {
		if got := finishReasons.Map(wire); got != want {
			t.Errorf("finishReasons.Map(%q) = %q, want %q", wire, got, want)
		}
	}
}

// TestNew covers endpoint defaults from the environment and refusals.
func TestNew(t *testing.T) {
	env := map[string]string{EnvRegion: "eu-west-3", EnvBearerToken: "ABSK-env"}
	tr, err := newTransport(providers.Endpoint{Provider: "bedrock"}, func(k string) string { return env[k] }, false)
	if err != nil {
		t.Fatal(err)
	}
	if tr.baseURL != "https://bedrock-runtime.eu-west-3.amazonaws.com" || tr.apiKey != "ABSK-env" {
		t.Errorf("transport %+v", tr)
	}
	if got := tr.callURL("amazon.nova-pro-v1:0"); got != "https://bedrock-runtime.eu-west-3.amazonaws.com/model/amazon.nova-pro-v1:0/converse" {
		t.Errorf("callURL %s", got)
	}
	env = map[string]string{EnvDefaultRegion: "ap-south-1"}
	if _, err := newTransport(providers.Endpoint{Provider: "bedrock"}, func(k string) string { return env[k] }, false); err == nil {
		t.Error("no key for amazonaws.com accepted")
	}
	noEnv := func(string) string { return "" }
	if _, err := newTransport(providers.Endpoint{BaseURL: "localhost:8080"}, noEnv, false); err == nil {
		t.Error("base_url without scheme accepted")
	}
	tr, err = newTransport(providers.Endpoint{BaseURL: "http://127.0.0.1:4000/bedrock/"}, noEnv, true)
	if err != nil || tr.callURL("m") != "http://127.0.0.1:4000/bedrock/model/m/converse-stream" {
		t.Errorf("gateway without key: %v %+v", err, tr)
	}
	if _, err := tr.Stream(context.Background(), providertest.SimpleRequest(), nil); err == nil || providertest.AsAPIError(t, err).Message == "" {
		t.Errorf("no model: %v", err)
	}
	if tr, err := New(providers.Endpoint{BaseURL: "http://x", APIKey: "k"}); err != nil || tr.(*converseTransport).stream {
		t.Errorf("New: %v", err)
	}
	if tr, err := NewStreaming(providers.Endpoint{BaseURL: "http://x", APIKey: "k"}); err != nil || !tr.(*converseTransport).stream {
		t.Errorf("NewStreaming: %v", err)
	}
}
