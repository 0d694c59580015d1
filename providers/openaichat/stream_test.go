package openaichat

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

// TestStreamFixtures streams each wire capture and checks the assembled
// response and the deltas reported on the way.
func TestStreamFixtures(t *testing.T) {
	tests := []struct {
		name, fixture string
		content       string
		reasoning     string
		calls         []providers.ToolCall
		finish, raw   string
		usage         providers.Usage
		model         string
		announced     []providers.Delta
	}{
		{
			name: "openai text (wire §1.2)", fixture: "openai_text.sse",
			content: "I'm unable.", finish: "stop", raw: "stop",
			usage: providers.Usage{InputTokens: 14, OutputTokens: 30}, model: "gpt-4o-2024-08-06",
		},
		{
			name: "openai parallel tool calls split mid-token (wire §1.3)", fixture: "openai_parallel_tools.sse",
			calls: []providers.ToolCall{
				{ID: "call_JMW1whyEaYG438VE1OIflxA2", Name: "GetWeatherArgs", Arguments: `{"city": "Edinburgh", "country": "UK", "units": "c"}`},
				{ID: "call_DNYTawLBoN8fj3KN6qU9N1Ou", Name: "get_stock_price", Arguments: `{"ticker": "AAPL", "exchange": "NASDAQ"}`},
			},
			finish: "tool_calls", raw: "tool_calls", usage: providers.Usage{InputTokens: 149, OutputTokens: 60},
			model: "gpt-4o-2024-08-06",
			announced: []providers.Delta{
				{Kind: providers.DeltaToolCall, ToolIndex: 0, ToolName: "GetWeatherArgs"},
				{Kind: providers.DeltaToolCall, ToolIndex: 1, ToolName: "get_stock_price"},
			},
		},
		{
			name: "openai single call with role in first chunk, cached tokens", fixture: "openai_single_tool.sse",
			calls:  []providers.ToolCall{{ID: "call_CTf1nWJLqSeRgDqaCG27xZ74", Name: "get_weather", Arguments: `{"city":"San Francisco"}`}},
			finish: "tool_calls", raw: "tool_calls",
			usage: providers.Usage{InputTokens: 16, OutputTokens: 19, CacheReadTokens: 32}, model: "gpt-4o-2024-08-06",
			announced: []providers.Delta{{Kind: providers.DeltaToolCall, ToolIndex: 0, ToolName: "get_weather"}},
		},
		{
			name: "openai finish length (wire §1.4)", fixture: "openai_length.sse",
			content: `{"`, finish: "length", raw: "length",
			usage: providers.Usage{InputTokens: 79, OutputTokens: 1}, model: "gpt-4o-2024-08-06",
		},
		{
			name: "ollama whole calls without index, reasoning", fixture: "ollama_tools_noindex.sse",
			reasoning: "The user wants weather and time.",
			calls: []providers.ToolCall{
				{ID: "call_k3x9a0qz", Name: "get_weather", Arguments: `{"city":"Paris"}`},
				{ID: "call_p2m8d1xa", Name: "get_time", Arguments: `{"tz":"Europe/Paris"}`},
			},
			finish: "tool_calls", raw: "tool_calls", usage: providers.Usage{InputTokens: 88, OutputTokens: 40}, model: "qwen3:8b",
			announced: []providers.Delta{
				{Kind: providers.DeltaToolCall, ToolIndex: 0, ToolName: "get_weather"},
				{Kind: providers.DeltaToolCall, ToolIndex: 1, ToolName: "get_time"},
			},
		},
		{
			name: "gemini: no index, empty ids, extra_content, stop with calls", fixture: "gemini_tools.sse",
			calls: []providers.ToolCall{
				{ID: "call_297140", Name: "read", Arguments: `{"offset":1,"limit":100,"path":"/app/skills/agent-runtime/stage-design/SKILL.md"}`,
					Extra: []byte(`{"google":{"thought_signature":"…"}}`)},
				{ID: "call_1", Name: "grep", Arguments: `{"pattern":"TODO"}`},
				{ID: "call_2", Name: "read", Arguments: `{"path":"go.mod"}`},
			},
			finish: "tool_calls", raw: "stop", usage: providers.Usage{InputTokens: 1203, OutputTokens: 61}, model: "gemini-3.8-flash",
			announced: []providers.Delta{
				{Kind: providers.DeltaToolCall, ToolIndex: 0, ToolName: "read"},
				{Kind: providers.DeltaToolCall, ToolIndex: 1, ToolName: "grep"},
				{Kind: providers.DeltaToolCall, ToolIndex: 2, ToolName: "read"},
			},
		},
		{
			name: "llama.cpp: reasoning_content, 32-char ids, timings", fixture: "llamacpp_reasoning_tools.sse",
			reasoning: "Need the file list.",
			calls:     []providers.ToolCall{{ID: "Xq3bT9mKp2LzR8vN4wYc6HdJ1fGsA0eU", Name: "list_dir", Arguments: `{"path": "."}`}},
			finish:    "tool_calls", raw: "tool_calls", usage: providers.Usage{InputTokens: 310, OutputTokens: 25}, model: "qwen3-8b",
			announced: []providers.Delta{{Kind: providers.DeltaToolCall, ToolIndex: 0, ToolName: "list_dir"}},
		},
		{
			name: "vllm: reasoning and reasoning_content not doubled", fixture: "vllm_reasoning.sse",
			content: "4", reasoning: "Two plus two is four.", finish: "stop", raw: "stop",
			usage: providers.Usage{InputTokens: 12, OutputTokens: 18}, model: "Qwen/Qwen3-8B",
		},
		{
			name: "more than 300 SSE comments in a row", fixture: "keepalive_comments.sse",
			content: "Done.", reasoning: "Think.", finish: "stop", raw: "stop",
			usage: providers.Usage{InputTokens: 36, OutputTokens: 10, CacheReadTokens: 64, ReasoningTokens: 4}, model: "deepseek-reasoner",
		},
		{
			name: "refusal without finish reason", fixture: "refusal.sse",
			content: "I'm sorry, I can't help with that.", finish: "content_filter", model: "gpt-4o-2024-08-06",
		},
		{
			name: "azure prompt filter chunk, second choice ignored", fixture: "azure_multichoice.sse",
			content: "Yes.", finish: "stop", raw: "stop", model: "gpt-4o",
		},
		{
			name: "index 0 reused with a new id is a new call", fixture: "index_reuse.sse",
			calls: []providers.ToolCall{
				{ID: "call_a", Name: "read", Arguments: `{"path":"a.go"}`},
				{ID: "call_b", Name: "read", Arguments: `{"path":"b.go"}`},
			},
			finish: "tool_calls", raw: "tool_calls", model: "local",
			announced: []providers.Delta{
				{Kind: providers.DeltaToolCall, ToolIndex: 0, ToolName: "read"},
				{Kind: providers.DeltaToolCall, ToolIndex: 1, ToolName: "read"},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := sseServer(t, tc.fixture)
			tr := newTestTransport(t, srv, "test")
			var log providertest.DeltaLog
			resp, err := tr.Stream(context.Background(), providertest.SimpleRequest(), log.Add)
			if err != nil {
				t.Fatalf("Stream: %v", err)
			}
			providertest.CheckAnswer(t, resp, providers.Response{Content: tc.content, Reasoning: tc.reasoning, ToolCalls: tc.calls,
				FinishReason: tc.finish, RawFinishReason: tc.raw, Usage: tc.usage, Model: tc.model}, &log)
			if !reflect.DeepEqual(log.Tools, tc.announced) {
				t.Errorf("tool deltas %+v, want %+v", log.Tools, tc.announced)
			}
		})
	}
}

// TestStreamCRLF checks that CRLF line endings parse like LF.
func TestStreamCRLF(t *testing.T) {
	body := bytes.ReplaceAll(providertest.ReadFixture(t, "openai_text.sse"), []byte("\n"), []byte("\r\n"))
	srv, _ := providertest.Serve(t, providertest.WireReply{Body: body})
	resp, err := newTestTransport(t, srv, "test").Stream(context.Background(), providertest.SimpleRequest(), nil)
	if err != nil || resp.Content != "I'm unable." || resp.FinishReason != "stop" {
		t.Fatalf("got %+v, %v", resp, err)
	}
}

// TestStreamCut checks that a stream ending without a finish reason or
// without [DONE] returns the partial response and an unexpected-EOF error.
func TestStreamCut(t *testing.T) {
	tests := []struct{ fixture, content, finish string }{
		{"cut_stream.sse", "Half a sentence", ""},
		{"cut_after_finish.sse", "All", "stop"},
	}
	for _, tc := range tests {
		t.Run(tc.fixture, func(t *testing.T) {
			srv, _ := sseServer(t, tc.fixture)
			resp, err := newTestTransport(t, srv, "openai").Stream(context.Background(), providertest.SimpleRequest(), nil)
			ae := providertest.AsAPIError(t, err)
			if !ae.MidStream || !errors.Is(err, io.ErrUnexpectedEOF) || ae.Provider != "openai" {
				t.Errorf("error %+v: want MidStream wrapping io.ErrUnexpectedEOF", ae)
			}
			if resp == nil || resp.Content != tc.content || resp.FinishReason != tc.finish {
				t.Errorf("partial response %+v, want content %q finish %q", resp, tc.content, tc.finish)
			}
		})
	}
}

// TestStreamPlainJSON checks a server that ignores stream:true and answers
// with a complete chat.completion.
func TestStreamPlainJSON(t *testing.T) {
	body := `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Hello","reasoning":"hm","tool_calls":[{"id":"call_x","type":"function","function":{"name":"ls","arguments":"{}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}`
	srv, _ := providertest.Serve(t, providertest.WireReply{Headers: map[string]string{"Content-Type": "application/json"}, Body: []byte(body)})
	var log providertest.DeltaLog
	resp, err := newTestTransport(t, srv, "test").Stream(context.Background(), providertest.SimpleRequest(), log.Add)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	want := &providers.Response{
		Content: "Hello", Reasoning: "hm", FinishReason: "tool_calls", RawFinishReason: "tool_calls", Model: "m",
		ToolCalls: []providers.ToolCall{{ID: "call_x", Name: "ls", Arguments: "{}"}},
		Usage:     providers.Usage{InputTokens: 5, OutputTokens: 2},
	}
	if !reflect.DeepEqual(resp, want) {
		t.Errorf("got %+v\nwant %+v", resp, want)
	}
	if log.Text.String() != "Hello" || log.Reasoning.String() != "hm" || len(log.Tools) != 1 {
		t.Errorf("deltas: %q %q %+v", log.Text.String(), log.Reasoning.String(), log.Tools)
	}
}

// TestStreamOddBodies checks 200 answers that are not a clean SSE stream.
func TestStreamOddBodies(t *testing.T) {
	const okChunk = `{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`
	tests := []struct {
		name, ctype, body string
		content           string // want this content and no error, or:
		errMsg            string // want an APIError whose message starts so
		status            int
		midStream         bool
	}{
		{name: "SSE labelled application/json", ctype: "application/json",
			body: "data: " + okChunk + "\n\ndata: [DONE]\n\n", content: "ok"},
		{name: "SSE without content type", ctype: "",
			body: "\n\ndata: " + okChunk + "\n\ndata: [DONE]\n\n", content: "ok"},
		{name: `"error":null as first key is no error`, ctype: "text/event-stream",
			body: `data: {"error":null,"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n", content: "ok"},
		{name: "string error in stream", ctype: "text/event-stream",
			body: `data: {"error":"model is overloaded"}` + "\n\n", errMsg: "model is overloaded", midStream: true},
		{name: "JSON error with status 200", ctype: "application/json",
			body: `{"error":{"message":"Invalid model","type":"invalid_request_error","code":"bad_model"}}`, errMsg: "Invalid model", status: 200},
		{name: "HTML page with status 200", ctype: "text/html",
			body: "<!doctype html><html><head><title>Sign in to Wi-Fi</title></head><body>x</body></html>", errMsg: "Sign in to Wi-Fi", status: 200},
		{name: "empty body", ctype: "text/event-stream",
			body: "", errMsg: "the stream ended before any data event", midStream: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := providertest.Serve(t, providertest.WireReply{Headers: map[string]string{"Content-Type": tc.ctype}, Body: []byte(tc.body)})
			resp, err := newTestTransport(t, srv, "test").Stream(context.Background(), providertest.SimpleRequest(), nil)
			if tc.errMsg == "" {
				if err != nil || resp.Content != tc.content {
					t.Fatalf("got %+v, %v; want content %q", resp, err, tc.content)
				}
				return
			}
			ae := providertest.AsAPIError(t, err)
			if !strings.HasPrefix(ae.Message, tc.errMsg) || ae.Status != tc.status || ae.MidStream != tc.midStream {
				t.Errorf("got %+v; want message %q status %d midstream %v", ae, tc.errMsg, tc.status, tc.midStream)
			}
		})
	}
}

// TestTypedContentParts checks issue 18 item 12: Mistral's typed content
// parts in a delta ([{"type":"thinking","thinking":[…]},{"type":"text",…}])
// give the reasoning and the text, both in the response and as deltas.
func TestTypedContentParts(t *testing.T) {
	body := `data: {"id":"c1","object":"chat.completion.chunk","model":"magistral-medium-2509","choices":[{"index":0,"delta":{"role":"assistant","content":[{"type":"thinking","thinking":[{"type":"text","text":"The user greets. "}]}]},"finish_reason":null}]}

data: {"id":"c1","object":"chat.completion.chunk","model":"magistral-medium-2509","choices":[{"index":0,"delta":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"Answer briefly."}]},{"type":"text","text":"Hello"}]},"finish_reason":null}]}

data: {"id":"c1","object":"chat.completion.chunk","model":"magistral-medium-2509","choices":[{"index":0,"delta":{"content":" there"},"finish_reason":null}]}

data: {"id":"c1","object":"chat.completion.chunk","model":"magistral-medium-2509","choices":[{"index":0,"delta":{"content":[{"type":"image_url","image_url":"x"},{"type":"text","text":"!"}]},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":20}}

data: [DONE]

`
	srv, _ := providertest.Serve(t, providertest.WireReply{Body: []byte(body)})
	var log providertest.DeltaLog
	resp, err := newTestTransport(t, srv, "mistral").Stream(context.Background(), providertest.SimpleRequest(), log.Add)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Content != "Hello there!" || resp.Reasoning != "The user greets. Answer briefly." || resp.FinishReason != "stop" {
		t.Errorf("response %+v", resp)
	}
	if log.Text.String() != resp.Content || log.Reasoning.String() != resp.Reasoning {
		t.Errorf("deltas text %q reasoning %q", log.Text.String(), log.Reasoning.String())
	}
}

// TestReasoningEffort checks issue 18 item 4's mapping: reasoning_effort
// is sent when asked for, and absent otherwise.
func TestReasoningEffort(t *testing.T) {
	for _, effort := range []string{"", "low", "high"} {
		srv, reqs := sseServer(t, "openai_text.sse")
		req := providertest.SimpleRequest()
		req.ReasoningEffort = effort
		if _, err := newTestTransport(t, srv, "openai").Stream(context.Background(), req, nil); err != nil {
			t.Fatal(err)
		}
		var body map[string]any
		if err := json.Unmarshal((<-reqs).Raw, &body); err != nil {
			t.Fatal(err)
		}
		got, ok := body["reasoning_effort"]
		if effort == "" && ok || effort != "" && got != effort {
			t.Errorf("effort %q: reasoning_effort %v (present %v)", effort, got, ok)
		}
	}
}
