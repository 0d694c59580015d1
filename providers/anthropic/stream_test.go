package anthropic

import (
	"bytes"
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

const thinkingText = "Simple educational question about what a solar eclipse is. This is benign general knowledge — definitions are fine. Also the user called me \"claudius\" — I'm Claude. Minor correction or just roll with it politely."

// TestStreamFixtures streams each capture and checks the assembled response,
// the replay data and the deltas reported on the way.
func TestStreamFixtures(t *testing.T) {
	str := func(s string) *string { return &s }
	tests := []struct {
		name, fixture   string
		content         string
		reasoning       string
		calls           []providers.ToolCall
		finish, raw     string
		usage           providers.Usage
		model           string
		replay          []replayBlock
		announced       []providers.Delta
		incompleteCalls bool
	}{
		{
			name: "text (wire §2.2)", fixture: "text.sse",
			content: "Hello there!", finish: "stop", raw: "end_turn",
			usage: providers.Usage{InputTokens: 11, OutputTokens: 6}, model: "claude-3-opus-latest",
		},
		{
			name: "tool_use with split input_json_delta (wire §2.3)", fixture: "tool_use.sse",
			content: "I'll check the current weather in Paris for you.",
			calls:   []providers.ToolCall{{ID: "toolu_01NRLabsLyVHZPKxbKvkfSMn", Name: "get_weather", Arguments: `{"location": "Paris"}`}},
			finish:  "tool_calls", raw: "tool_use",
			usage: providers.Usage{InputTokens: 377, OutputTokens: 65}, model: "claude-sonnet-4-20250514",
			replay:    nil,
			announced: []providers.Delta{{Kind: providers.DeltaToolCall, ToolIndex: 0, ToolName: "get_weather"}},
		},
		{
			name: "max_tokens inside tool JSON, no content_block_stop (wire §2.4)", fixture: "truncated_tool.sse",
			content: "I'll create a comprehensive tax guide for someone with multiple W2s and save it in a file called taxes.txt. Let me do that for you now.",
			calls: []providers.ToolCall{{
				ID: "toolu_01EKqbqmZrGRXy18eN7m9kvY", Name: "make_file",
				Arguments: "{\"filename\": \"taxes.txt\", \"lines_of_text\": [\n\"# COMPREHENSIVE TAX GUIDE FOR INDIVIDUALS WITH MULTIPLE W-2s\",\n\"\",\n\"## INTRODUCTION\",\n\"\",\n\"Filing taxes",
				Extra:     json.RawMessage(providers.IncompleteExtra),
			}},
			finish: "length", raw: "max_tokens",
			usage: providers.Usage{InputTokens: 450, OutputTokens: 124}, model: "claude-3-7-sonnet-20250219",
			announced:       []providers.Delta{{Kind: providers.DeltaToolCall, ToolIndex: 0, ToolName: "make_file"}},
			incompleteCalls: true,
		},
		{
			name: "thinking + signature, refusal (wire §2.5)", fixture: "thinking_refusal.sse",
			content: "Hi", reasoning: thinkingText, finish: "content_filter", raw: "refusal",
			usage: providers.Usage{InputTokens: 28, OutputTokens: 106, ReasoningTokens: 67}, model: "claude-fable-5",
			replay: []replayBlock{
				{Type: "thinking", Thinking: str(thinkingText), Signature: "c3ludGhldGljLXNpZ25hdHVyZS1maXh0dXJlLWEtbm90LWEtcmVhbC1zaWduYXR1cmU="},
				{Type: "text"},
			},
		},
		{
			name: "refusal with empty text (wire §2.5)", fixture: "refusal.sse",
			finish: "content_filter", raw: "refusal",
			usage: providers.Usage{InputTokens: 20, OutputTokens: 120, ReasoningTokens: 67}, model: "claude-opus-4-7",
		},
		{
			name: "thinking, redacted_thinking, text, two tool calls, cache usage", fixture: "thinking_tools.sse",
			content: "Listing the package first.", reasoning: "The user wants the tests run. I should list the files first.",
			calls: []providers.ToolCall{
				{ID: "toolu_01A09q90qw90lq917835lq9", Name: "list_files", Arguments: `{"path": "providers/", "depth": 2}`},
				{ID: "toolu_01B19r91rx91mr928946mr0", Name: "git_status", Arguments: `{}`},
			},
			finish: "tool_calls", raw: "tool_use",
			usage: providers.Usage{InputTokens: 312, OutputTokens: 89, CacheReadTokens: 2048, CacheWriteTokens: 512},
			model: "claude-sonnet-4-5-20250929",
			replay: []replayBlock{
				{Type: "thinking", Thinking: str("The user wants the tests run. I should list the files first."), Signature: "RXVTaWdGaXh0dXJlMDE="},
				{Type: "redacted_thinking", Data: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj"},
				{Type: "text"},
				{Type: "tool_use", ID: "toolu_01A09q90qw90lq917835lq9"},
				{Type: "tool_use", ID: "toolu_01B19r91rx91mr928946mr0"},
			},
			announced: []providers.Delta{
				{Kind: providers.DeltaToolCall, ToolIndex: 0, ToolName: "list_files"},
				{Kind: providers.DeltaToolCall, ToolIndex: 1, ToolName: "git_status"},
			},
		},
		{
			name: "pause_turn", fixture: "pause_turn.sse",
			content: "Searching", finish: FinishPauseTurn, raw: "pause_turn",
			usage: providers.Usage{InputTokens: 40, OutputTokens: 12}, model: "claude-sonnet-4-5-20250929",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := providertest.FixtureServer(t, tc.fixture)
			tr := newTestTransport(t, srv)
			var log providertest.DeltaLog
			resp, err := tr.Stream(context.Background(), providertest.SimpleRequest(), log.Add)
			if err != nil {
				t.Fatalf("Stream: %v", err)
			}
			providertest.CheckAnswer(t, resp, providers.Response{Content: tc.content, Reasoning: tc.reasoning, ToolCalls: tc.calls,
				FinishReason: tc.finish, RawFinishReason: tc.raw, Usage: tc.usage, Model: tc.model}, &log)
			for _, c := range resp.ToolCalls {
				if len(c.Extra) != 0 && !tc.incompleteCalls {
					t.Errorf("call %s marked incomplete", c.ID)
				}
			}
			if got := parseReplay(resp.ReasoningReplay); !reflect.DeepEqual(got, tc.replay) {
				t.Errorf("replay\n got %s\nwant %+v", resp.ReasoningReplay, tc.replay)
			}
			if !reflect.DeepEqual(log.Tools, tc.announced) {
				t.Errorf("announced %+v, want %+v", log.Tools, tc.announced)
			}
		})
	}
}

// TestMidStreamError checks the overloaded_error event of wire.md §2.7
// after some text: a MidStream APIError with the partial response.
func TestMidStreamError(t *testing.T) {
	srv := providertest.StartWire(t, providertest.WireReply{Body: providertest.ReadFixture(t, "midstream_error.sse"), Headers: map[string]string{"Request-Id": "req_mid"}})
	tr := newTestTransport(t, srv)
	var log providertest.DeltaLog
	resp, err := tr.Stream(context.Background(), providertest.SimpleRequest(), log.Add)
	ae := providertest.AsAPIError(t, err)
	if !ae.MidStream || ae.Status != 0 || ae.Type != "overloaded_error" || ae.Message != "Overloaded" {
		t.Errorf("APIError %+v, want MidStream overloaded_error Overloaded with status 0", ae)
	}
	if !strings.Contains(ae.Body, `"overloaded_error"`) || ae.Headers.Get("Request-Id") != "req_mid" {
		t.Errorf("body %q / headers %v not kept", ae.Body, ae.Headers)
	}
	if resp == nil || resp.Content != "Let me look at the failing test" || resp.Usage.CacheReadTokens != 1024 {
		t.Fatalf("partial response %+v", resp)
	}
	if resp.FinishReason != "" {
		t.Errorf("partial response has finish reason %q", resp.FinishReason)
	}
	if got := providers.Classify(err); got.Reason != providers.ReasonOverloaded || !got.Retryable {
		t.Errorf("Classify = %+v, want retryable overloaded", got)
	}
}

// TestStreamVariants covers bodies that differ from the fixtures in one way.
func TestStreamVariants(t *testing.T) {
	text := providertest.ReadFixture(t, "text.sse")
	head := "event: message_start\n" + `data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-x","stop_reason":null,"usage":{"input_tokens":3,"output_tokens":1}}}` + "\n\n"
	tests := []struct {
		name    string
		body    []byte
		ctype   string
		content string
		finish  string
		errType string // "" for success
		eof     bool   // error wraps io.ErrUnexpectedEOF
	}{
		{name: "CRLF line endings", body: bytes.ReplaceAll(text, []byte("\n"), []byte("\r\n")), content: "Hello there!", finish: "stop"},
		{name: "no event lines (type from JSON)", body: dropEventLines(text), content: "Hello there!", finish: "stop"},
		{name: "comments and unknown events", body: []byte(": keep-alive\n\n" + head +
			"event: content_block_start\n" + `data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}` + "\n\n" +
			"event: future_event\n" + `data: {"type":"future_event","payload":{"x":1}}` + "\n\n" +
			"event: future_block_event\n" + `data: {"type":"future_block_event","index":{"nested":true},"delta":"text"}` + "\n\n" +
			"event: content_block_delta\n" + `data: {"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":{}}}` + "\n\n" +
			"event: content_block_start\n" + `data: {"type":"content_block_start","index":1,"content_block":{"type":"hologram","id":"h1"}}` + "\n\n" +
			"event: content_block_delta\n" + `data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"ok"}   }   ` + "\n\n" +
			"event: message_delta\n" + `data: {"type":"message_delta","delta":{"stop_reason":"stop_sequence"},"usage":{"output_tokens":2}}` + "\n\n"),
			content: "ok", finish: "stop"},
		{name: "verbatim §2.7 error right after message_start", body: []byte(head + "event: error\n" + `data: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}` + "\n\n"),
			errType: "overloaded_error"},
		{name: "error event cut before its blank line", body: []byte(head + "event: error\n" + `data: {"type":"error","error":{"type":"api_error","message":"Internal server error"}}`),
			errType: "api_error"},
		{name: "cut before stop_reason", body: text[:bytes.Index(text, []byte("event: content_block_stop"))], content: "Hello there!", eof: true},
		{name: "empty 200 body", body: nil, eof: true},
		{name: "model_context_window_exceeded", body: []byte(head + "event: message_delta\n" + `data: {"type":"message_delta","delta":{"stop_reason":"model_context_window_exceeded"},"usage":{"output_tokens":2}}` + "\n\n"), finish: "length"},
		{name: "whole JSON message instead of a stream", ctype: "application/json",
			body:    []byte(`{"id":"msg_2","type":"message","role":"assistant","model":"claude-x","content":[{"type":"text","text":"plain"}],"stop_reason":"end_turn","usage":{"input_tokens":4,"output_tokens":1}}`),
			content: "plain", finish: "stop"},
		{name: "error object with status 200", ctype: "application/json",
			body: []byte(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`), errType: "overloaded_error"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := providertest.WireReply{Body: tc.body}
			if tc.ctype != "" {
				rep.Headers = map[string]string{"Content-Type": tc.ctype}
			}
			tr := newTestTransport(t, providertest.StartWire(t, rep))
			var log providertest.DeltaLog
			resp, err := tr.Stream(context.Background(), providertest.SimpleRequest(), log.Add)
			switch {
			case tc.errType != "":
				if ae := providertest.AsAPIError(t, err); ae.Type != tc.errType {
					t.Errorf("error type %q, want %q (%v)", ae.Type, tc.errType, err)
				}
			case tc.eof:
				ae := providertest.AsAPIError(t, err)
				if !ae.MidStream || !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Errorf("error %+v, want MidStream wrapping io.ErrUnexpectedEOF", ae)
				}
			case err != nil:
				t.Fatalf("Stream: %v", err)
			}
			if resp != nil && (resp.Content != tc.content || resp.FinishReason != tc.finish) {
				t.Errorf("content %q finish %q, want %q %q", resp.Content, resp.FinishReason, tc.content, tc.finish)
			}
			if log.Text.String() != tc.content {
				t.Errorf("text deltas %q, want %q", log.Text.String(), tc.content)
			}
		})
	}
}

func dropEventLines(b []byte) []byte {
	var out []string
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if !strings.HasPrefix(l, "event:") {
			out = append(out, l)
		}
	}
	return []byte(strings.Join(out, ""))
}

// TestStreamRequest checks the HTTP request: path (a /v1 base URL and a
// base URL with a path prefix are accepted), stream flag, credentials and
// version headers, and that the environment is ignored.
func TestStreamRequest(t *testing.T) {
	// Nothing is read from the environment.
	t.Setenv("ANTHROPIC_API_KEY", "env-key")
	t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1")
	srv := providertest.FixtureServer(t, "text.sse")
	tr, err := New(providers.Endpoint{Provider: "anthropic", Model: "claude-test", BaseURL: srv.URL + "/v1/", APIKey: "sk-ant-test", HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Stream(context.Background(), providertest.SimpleRequest(), nil); err != nil {
		t.Fatal(err)
	}
	c := srv.TakeRequest(t)
	if c.Path != "/v1/messages" {
		t.Errorf("path %q, want /v1/messages", c.Path)
	}
	if c.Body["stream"] != true || c.Body["model"] != "claude-test" || c.Body["max_tokens"] != float64(defaultMaxTokens) {
		t.Errorf("body %s", c.Raw)
	}
	if c.Header.Get("X-Api-Key") != "sk-ant-test" || c.Header.Get("Authorization") != "" {
		t.Errorf("the key must go in x-api-key only: %v", c.Header)
	}
	if c.Header.Get("Anthropic-Version") != "2023-06-01" || c.Header.Get("Content-Type") != "application/json" {
		t.Errorf("no anthropic-version header: %v", c.Header)
	}
	proxied, err := New(providers.Endpoint{Provider: "anthropic", Model: "m", BaseURL: srv.URL + "/api", HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := proxied.Stream(context.Background(), providertest.SimpleRequest(), nil); err != nil {
		t.Fatal(err)
	}
	if c := srv.TakeRequest(t); c.Path != "/api/v1/messages" || c.Header.Get("Authorization") != "" || c.Header.Get("X-Api-Key") != "" {
		t.Errorf("proxied request: path %q, credentials %v", c.Path, c.Header)
	}
	if _, err := New(providers.Endpoint{Provider: "anthropic", BaseURL: "localhost:8080"}); err == nil {
		t.Error("New accepted a base URL without scheme")
	}
}

// TestStreamCancelled checks that a cancelled context is visible in the error.
func TestStreamCancelled(t *testing.T) {
	providertest.CheckPreCancelled(t, newTestTransport(t, providertest.FixtureServer(t, "text.sse")))
}

// TestConcurrentStreams runs calls in parallel on one transport (run with
// -race): per-call state must not be shared.
func TestConcurrentStreams(t *testing.T) {
	providertest.CheckConcurrentStreams(t, newTestTransport(t, providertest.FixtureServer(t, "tool_use.sse")), 1)
}

// TestStreamCancelledMidStream cancels while the stream is open: the error
// is MidStream, wraps context.Canceled, and the partial text is kept.
func TestStreamCancelledMidStream(t *testing.T) {
	srv := providertest.HoldFixture(t, "text.sse", "event: content_block_stop")
	tr := providertest.Wire[*transport](t, New, providers.Endpoint{Provider: "anthropic", Model: "m", BaseURL: srv.URL + "/proxy", HTTPClient: srv.Client()})
	providertest.CheckCancelMidStream(t, tr, "!", "Hello there!")
}

// TestUndecodableEvent checks an event that is not valid for its type.
func TestUndecodableEvent(t *testing.T) {
	body := "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":\"zero\"}\n\n"
	_, err := newTestTransport(t, providertest.StartWire(t, providertest.WireReply{Body: []byte(body)})).Stream(context.Background(), providertest.SimpleRequest(), nil)
	ae := providertest.AsAPIError(t, err)
	if !ae.MidStream || !strings.Contains(ae.Message, "cannot decode") || !strings.Contains(ae.Body, `"zero"`) {
		t.Errorf("APIError %+v", ae)
	}
}

// TestSplicedStream checks issue 18 item 11: a second message_start before
// the first message stopped (a restarted stream spliced onto a cut one) is
// a retryable stream error for the attempt, never a merge of the two
// messages' text and tool calls into one response.
func TestSplicedStream(t *testing.T) {
	text := string(providertest.ReadFixture(t, "text.sse"))
	cut := text[:strings.Index(text, "event: message_delta")]
	tools := string(providertest.ReadFixture(t, "tool_use.sse"))
	srv := providertest.StartWire(t, providertest.WireReply{Body: []byte(cut + tools)})
	resp, err := newTestTransport(t, srv).Stream(context.Background(), providertest.SimpleRequest(), nil)
	ae := providertest.AsAPIError(t, err)
	if !ae.MidStream || !errors.Is(err, errSplicedStream) || !strings.Contains(ae.Message, "second message") {
		t.Fatalf("APIError %+v, want a MidStream spliced-stream error", ae)
	}
	if resp == nil || resp.Content != "Hello there!" || len(resp.ToolCalls) != 0 || resp.Model != "claude-3-opus-latest" {
		t.Errorf("partial response %+v: only the first message's part may be kept", resp)
	}
	if c := providers.Classify(err); !c.Retryable {
		t.Errorf("Classify = %+v, want retryable", c)
	}
}

// TestReasoningEffort checks issue 18 item 4's mapping: an effort turns on
// extended thinking with its budget, max_tokens stays above the budget, and
// models without extended thinking get none.
func TestReasoningEffort(t *testing.T) {
	for _, tc := range []struct {
		effort, model     string
		maxTokens         int
		budget, wantLimit int // budget 0: no thinking field
	}{
		{"", "claude-sonnet-4-5", 0, 0, defaultMaxTokens},
		{"low", "claude-sonnet-4-5", 0, 1024, defaultMaxTokens},
		{"medium", "claude-sonnet-4-5", 0, 4096, defaultMaxTokens},
		{"high", "claude-sonnet-4-5", 0, 16384, 16384 + defaultMaxTokens},
		{"high", "claude-opus-4-1", 32000, 16384, 32000},
		{"low", "claude-sonnet-4-5", 1000, 1024, 1024 + defaultMaxTokens},
		{"high", "claude-3-7-sonnet-latest", 0, 16384, 16384 + defaultMaxTokens},
		{"high", "claude-3-5-haiku-latest", 0, 0, defaultMaxTokens},
		{"medium", "claude-3-opus-20240229", 0, 0, legacyMaxTokens},
	} {
		srv := providertest.FixtureServer(t, "text.sse")
		req := providertest.SimpleRequest()
		req.Model, req.ReasoningEffort, req.MaxTokens = tc.model, tc.effort, tc.maxTokens
		if _, err := newTestTransport(t, srv).Stream(context.Background(), req, nil); err != nil {
			t.Fatal(err)
		}
		body := srv.TakeRequest(t).Body
		var want any
		if tc.budget > 0 {
			want = map[string]any{"type": "enabled", "budget_tokens": float64(tc.budget)}
		}
		if got := body["thinking"]; !reflect.DeepEqual(got, want) {
			t.Errorf("%s/%s: thinking %v, want %v", tc.effort, tc.model, got, want)
		}
		if got := body["max_tokens"]; got != float64(tc.wantLimit) {
			t.Errorf("%s/%s: max_tokens %v, want %d", tc.effort, tc.model, got, tc.wantLimit)
		}
	}
}
