package responses

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

// TestStreamFixtures streams each fixture and checks the assembled response,
// the replay data and the deltas reported on the way.
func TestStreamFixtures(t *testing.T) {
	tests := []struct {
		name, fixture string
		content       string
		reasoning     string
		calls         []providers.ToolCall
		finish, raw   string
		usage         providers.Usage
		model         string
		replayItems   int
		announced     []string
	}{
		{
			name: "text", fixture: "text.sse",
			content: "Hi there! How can I help?", finish: "stop", raw: "completed",
			usage: providers.Usage{InputTokens: 313, OutputTokens: 9, CacheReadTokens: 1024}, model: "gpt-4.1-2025-04-14",
		},
		{
			name: "two function calls, arguments split mid-token", fixture: "function_calls.sse",
			calls: []providers.ToolCall{
				{ID: "call_Wq3v8Bqn2x", Name: "read_file", Arguments: `{"path":"go.mod"}`},
				{ID: "call_Zr5t1Kxm9p", Name: "git_status", Arguments: `{}`},
			},
			finish: "tool_calls", raw: "completed", usage: providers.Usage{InputTokens: 220, OutputTokens: 31},
			model: "gpt-4.1-2025-04-14", announced: []string{"read_file", "git_status"},
		},
		{
			name: "reasoning summary parts, encrypted item, text and a call", fixture: "reasoning.sse",
			reasoning: "**Checking the module**\n\nI should read go.mod first.\n\nThen run the tests.",
			content:   "Reading go.mod.",
			calls:     []providers.ToolCall{{ID: "call_Rd9u2Lp0", Name: "read_file", Arguments: `{"path":"go.mod"}`}},
			finish:    "tool_calls", raw: "completed",
			usage: providers.Usage{InputTokens: 1024, OutputTokens: 210, CacheReadTokens: 4096, ReasoningTokens: 128},
			model: "gpt-5-codex", replayItems: 1, announced: []string{"read_file"},
		},
		{
			name: "wire §3: call finished, then response.incomplete max_output_tokens", fixture: "incomplete_function_call.sse",
			calls:  []providers.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Paris"}`}},
			finish: "length", raw: "max_output_tokens", usage: providers.Usage{InputTokens: 10, OutputTokens: 16},
			announced: []string{"get_weather"},
		},
		{
			name: "arguments cut by max_output_tokens", fixture: "truncated_function_call.sse",
			calls: []providers.ToolCall{{ID: "call_Tr7x", Name: "write_file",
				Arguments: `{"path":"notes.md","content":"# Notes\n\nFirst`, Extra: json.RawMessage(providers.IncompleteExtra)}},
			finish: "length", raw: "max_output_tokens", usage: providers.Usage{InputTokens: 300, OutputTokens: 16},
			model: "gpt-4.1-2025-04-14", announced: []string{"write_file"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTestTransport(t, providertest.FixtureServer(t, tc.fixture))
			var log providertest.DeltaLog
			resp, err := tr.Stream(context.Background(), providertest.SimpleRequest(), log.Add)
			if err != nil {
				t.Fatalf("Stream: %v", err)
			}
			providertest.CheckAnswer(t, resp, providers.Response{Content: tc.content, Reasoning: tc.reasoning, ToolCalls: tc.calls,
				FinishReason: tc.finish, RawFinishReason: tc.raw, Usage: tc.usage, Model: tc.model}, &log)
			r, _ := parseReplay(resp.ReasoningReplay)
			if len(r.Items) != tc.replayItems {
				t.Errorf("replay %s, want %d items", resp.ReasoningReplay, tc.replayItems)
			}
			var names []string
			for i, d := range log.Tools {
				if d.ToolIndex != i {
					t.Errorf("announcement %d has index %d", i, d.ToolIndex)
				}
				names = append(names, d.ToolName)
			}
			if !reflect.DeepEqual(names, tc.announced) {
				t.Errorf("announced %v, want %v", names, tc.announced)
			}
		})
	}
}

// TestReasoningReplayKept checks that the encrypted reasoning item is kept
// verbatim.
func TestReasoningReplayKept(t *testing.T) {
	tr := newTestTransport(t, providertest.FixtureServer(t, "reasoning.sse"))
	resp, err := tr.Stream(context.Background(), providertest.SimpleRequest(), nil)
	if err != nil {
		t.Fatal(err)
	}
	r, ok := parseReplay(resp.ReasoningReplay)
	if !ok || len(r.Items) != 1 {
		t.Fatalf("replay %s", resp.ReasoningReplay)
	}
	want := `{"id":"rs_68b0","type":"reasoning","summary":[{"type":"summary_text","text":"**Checking the module**\n\nI should read go.mod first."},{"type":"summary_text","text":"Then run the tests."}],"encrypted_content":"gAAAAABoxEncryptedReasoningFixture0001=="}`
	if string(r.Items[0]) != want {
		t.Errorf("item\n got %s\nwant %s", r.Items[0], want)
	}
}

// TestStreamErrors checks errors sent inside a 200 stream.
func TestStreamErrors(t *testing.T) {
	created := "event: response.created\n" + `data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_x","status":"in_progress","model":"gpt-4.1","output":[]}}` + "\n\n"
	tests := []struct {
		name, fixture string
		body          string
		msg, typ      string
		code          string
		reason        providers.FailoverReason
		content       string
	}{
		{
			name: "nested context_length_exceeded error event (wire §3)", fixture: "error_context.sse",
			msg: "Your input exceeds the context window of this model. Please adjust your input and try again.",
			typ: "invalid_request_error", code: "context_length_exceeded", reason: providers.ReasonContextOverflow,
		},
		{
			name: "response.failed with an error object", fixture: "failed.sse",
			msg: "The server had an error while processing your request. Sorry about that!", code: "server_error",
			reason: providers.ReasonServerError, content: "Partial",
		},
		{
			name: "response.failed with a context_length_exceeded error",
			body: created + "event: response.failed\n" + `data: {"type":"response.failed","sequence_number":1,"response":{"id":"resp_x","status":"failed","error":{"code":"context_length_exceeded","message":"Your input exceeds the context window of this model. Please adjust your input and try again."},"output":[]}}` + "\n\n",
			msg:  "Your input exceeds the context window of this model. Please adjust your input and try again.",
			code: "context_length_exceeded", reason: providers.ReasonContextOverflow,
		},
		{
			name: "flat SDK-shaped error event",
			body: created + "event: error\n" + `data: {"type":"error","code":"rate_limit_exceeded","message":"Rate limit reached for gpt-4.1 on tokens per min (TPM). Please try again in 1.2s.","param":null,"sequence_number":1}` + "\n\n",
			msg:  "Rate limit reached for gpt-4.1 on tokens per min (TPM). Please try again in 1.2s.", code: "rate_limit_exceeded",
		},
		{
			name: "error event without event line, cut before its blank line",
			body: created + `data: {"type":"error","sequence_number":1,"error":{"type":"server_error","code":null,"message":"upstream gone"}}`,
			msg:  "upstream gone", typ: "server_error",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body := []byte(tc.body)
			if tc.fixture != "" {
				body = providertest.ReadFixture(t, tc.fixture)
			}
			tr := newTestTransport(t, providertest.StartWire(t, providertest.WireReply{Body: body, Headers: map[string]string{"X-Request-Id": "req_1"}}))
			resp, err := tr.Stream(context.Background(), providertest.SimpleRequest(), nil)
			ae := providertest.AsAPIError(t, err)
			if !ae.MidStream || ae.Status != 0 || ae.Message != tc.msg || ae.Type != tc.typ || ae.Code != tc.code {
				t.Errorf("APIError %+v\nwant MidStream message %q type %q code %q", ae, tc.msg, tc.typ, tc.code)
			}
			if ae.Body == "" || ae.Headers.Get("X-Request-Id") != "req_1" {
				t.Errorf("body %q / headers %v not kept", ae.Body, ae.Headers)
			}
			if resp == nil || resp.Content != tc.content {
				t.Errorf("partial response %+v, want content %q", resp, tc.content)
			}
			if tc.reason != "" {
				if c := providers.Classify(err); c.Reason != tc.reason {
					t.Errorf("Classify reason %q, want %q", c.Reason, tc.reason)
				}
			}
		})
	}
}

// TestStreamVariants covers bodies that differ from the fixtures in one way.
func TestStreamVariants(t *testing.T) {
	text := providertest.ReadFixture(t, "text.sse")
	calls := providertest.ReadFixture(t, "function_calls.sse")
	ev := func(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }
	tests := []struct {
		name    string
		body    []byte
		ctype   string
		content string
		finish  string
		calls   int
		errType string
		eof     bool
	}{
		{name: "CRLF", body: bytes.ReplaceAll(text, []byte("\n"), []byte("\r\n")), content: "Hi there! How can I help?", finish: "stop"},
		{name: "[DONE] after completed", body: append(bytes.Clone(text), "data: [DONE]\n\n"...), content: "Hi there! How can I help?", finish: "stop"},
		{name: "unknown events, one with an object delta", body: []byte(
			ev("response.future.delta", `{"type":"response.future.delta","delta":{"x":1}}`) +
				": keep-alive\n\n" +
				ev("response.output_text.delta", `{"type":"response.output_text.delta","item_id":"m","output_index":0,"delta":"ok"}   `) +
				ev("response.web_search_call.searching", `{"type":"response.web_search_call.searching","item_id":"ws","output_index":1}`) +
				ev("response.completed", `{"type":"response.completed","response":{"status":"completed","output":[]}}`)),
			content: "ok", finish: "stop"},
		{name: "content_filter", body: []byte(
			ev("response.output_text.delta", `{"type":"response.output_text.delta","delta":"I can"}`) +
				ev("response.incomplete", `{"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"content_filter"},"output":[]}}`)),
			content: "I can", finish: "content_filter"},
		{name: "refusal", body: []byte(
			ev("response.refusal.delta", `{"type":"response.refusal.delta","item_id":"m","delta":"I can't help with that."}`) +
				ev("response.completed", `{"type":"response.completed","response":{"status":"completed","output":[]}}`)),
			content: "I can't help with that.", finish: "content_filter"},
		{name: "only the final event, output items in it", body: []byte(
			ev("response.completed", `{"type":"response.completed","response":{"status":"completed","model":"m","output":[`+
				`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Done."}]},`+
				`{"type":"function_call","id":"fc_9","call_id":"call_9","name":"ls","arguments":"{}","status":"completed"}]}}`)),
			content: "Done.", finish: "tool_calls", calls: 1},
		{name: "cut inside a call's arguments", body: calls[:bytes.Index(calls, []byte("event: response.function_call_arguments.done"))], calls: 1, eof: true},
		{name: "[DONE] without a final event", body: []byte(ev("response.output_text.delta", `{"type":"response.output_text.delta","delta":"x"}`) + "data: [DONE]\n\n"), content: "x", eof: true},
		{name: "empty 200 body", eof: true},
		{name: "whole JSON response instead of a stream", ctype: "application/json",
			body:    []byte(`{"id":"resp_p","object":"response","status":"completed","model":"gpt-4.1","output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"plain"}]}],"usage":{"input_tokens":5,"output_tokens":1}}`),
			content: "plain", finish: "stop"},
		{name: "error JSON with status 200", ctype: "application/json",
			body: []byte(`{"error":{"message":"bad","type":"invalid_request_error","param":null,"code":null}}`), errType: "invalid_request_error"},
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
				return
			case tc.eof:
				if ae := providertest.AsAPIError(t, err); !ae.MidStream || !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Errorf("error %+v, want MidStream wrapping io.ErrUnexpectedEOF", ae)
				}
			case err != nil:
				t.Fatalf("Stream: %v", err)
			}
			if resp.Content != tc.content || resp.FinishReason != tc.finish || len(resp.ToolCalls) != tc.calls {
				t.Errorf("content %q finish %q calls %+v, want %q %q %d", resp.Content, resp.FinishReason, resp.ToolCalls, tc.content, tc.finish, tc.calls)
			}
			for _, c := range resp.ToolCalls {
				if tc.eof && string(c.Extra) != providers.IncompleteExtra {
					t.Errorf("call %+v of a cut stream not marked incomplete", c)
				}
			}
			if log.Text.String() != tc.content {
				t.Errorf("text deltas %q, want %q", log.Text.String(), tc.content)
			}
		})
	}
}

// TestStreamRequest checks the HTTP request: path, headers, stream and store
// flags, and the reasoning parameters only for reasoning models.
func TestStreamRequest(t *testing.T) {
	for _, model := range []string{"gpt-4.1", "gpt-5-codex", "openai/o4-mini"} {
		srv := providertest.FixtureServer(t, "text.sse")
		tr := newTestTransport(t, srv)
		req := providertest.SimpleRequest()
		req.Model, req.MaxTokens = model, 2048
		if _, err := tr.Stream(context.Background(), req, nil); err != nil {
			t.Fatal(err)
		}
		c := srv.TakeRequest(t)
		if c.Path != "/v1/responses" || c.Header.Get("Authorization") != "Bearer sk-test" || !strings.Contains(c.Header.Get("Accept"), "text/event-stream") {
			t.Errorf("%s: path %q headers %v", model, c.Path, c.Header)
		}
		if c.Body["model"] != model || c.Body["stream"] != true || c.Body["store"] != false || c.Body["max_output_tokens"] != float64(2048) {
			t.Errorf("%s: body %s", model, c.Raw)
		}
		_, hasReasoning := c.Body["reasoning"]
		include, _ := c.Body["include"].([]any)
		wantReasoning := model != "gpt-4.1"
		if hasReasoning != wantReasoning || (len(include) == 1 && include[0] == encryptedReasoning) != wantReasoning {
			t.Errorf("%s: reasoning %v include %v, want reasoning params %v", model, c.Body["reasoning"], include, wantReasoning)
		}
	}
	if tr, _ := New(providers.Endpoint{}); tr.(*transport).url != "https://api.openai.com/v1/responses" {
		t.Errorf("default url %q", tr.(*transport).url)
	}
	if _, err := New(providers.Endpoint{Provider: "openai", BaseURL: "api.openai.com"}); err == nil {
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
	providertest.CheckConcurrentStreams(t, newTestTransport(t, providertest.FixtureServer(t, "function_calls.sse")), 2)
}

// TestStreamCancelledMidStream cancels while the stream is open: the error
// is MidStream, wraps context.Canceled, and the partial text is kept.
func TestStreamCancelledMidStream(t *testing.T) {
	srv := providertest.HoldFixture(t, "text.sse", "event: response.output_text.done")
	tr := providertest.Wire[*transport](t, New, providers.Endpoint{Provider: "openai", Model: "m", BaseURL: srv.URL, HTTPClient: srv.Client()})
	providertest.CheckCancelMidStream(t, tr, " How can I help?", "Hi there! How can I help?")
}

// TestUndecodableEvent checks an event of a handled type that does not
// decode; the same fault in an unknown event type is skipped.
func TestUndecodableEvent(t *testing.T) {
	body := "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":[1]}\n\n"
	_, err := newTestTransport(t, providertest.StartWire(t, providertest.WireReply{Body: []byte(body)})).Stream(context.Background(), providertest.SimpleRequest(), nil)
	ae := providertest.AsAPIError(t, err)
	if !ae.MidStream || !strings.Contains(ae.Message, "cannot decode") || !strings.Contains(ae.Body, `[1]`) {
		t.Errorf("APIError %+v", ae)
	}
}
