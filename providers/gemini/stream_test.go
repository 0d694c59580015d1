package gemini

import (
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

// TestStreamFixtures streams each constructed SSE body (testdata/README.md)
// and checks the assembled response and the deltas reported on the way.
func TestStreamFixtures(t *testing.T) {
	tests := []struct {
		name, fixture string
		content       string
		reasoning     string
		replay        string
		calls         []providers.ToolCall
		finish, raw   string
		usage         providers.Usage
		model         string
	}{
		{
			name: "text with thoughts, signature on the last text part, cache", fixture: "text_thoughts.sse",
			content:   "The capital of Australia is Canberra.",
			reasoning: "**Recalling the capital**\n\nAustralia's capital is Canberra.",
			replay:    `{"gemini_native":{"thought_signature":"CiQB0e2Kb3JMb2dLzUAvWq0fQyJ8oN4Y1lXq2v9xk3tS6hJp"}}`,
			finish:    "stop", raw: "STOP",
			usage: providers.Usage{InputTokens: 1024, OutputTokens: 22, CacheReadTokens: 1024, ReasoningTokens: 14},
			model: "gemini-2.5-flash",
		},
		{
			name: "parallel function calls, STOP means tool_calls", fixture: "tool_calls.sse",
			content: "Let me look at both files.",
			calls: []providers.ToolCall{
				{ID: "call_0", Name: "read_file", Arguments: `{"path":"go.mod","limit":50}`, Extra: json.RawMessage(`{"google":{"thought_signature":"EpQCCpECAdHtim9sig-first-call"}}`)},
				{ID: "call_1", Name: "list_dir", Arguments: `{}`},
			},
			finish: "tool_calls", raw: "STOP",
			usage: providers.Usage{InputTokens: 1203, OutputTokens: 101, ReasoningTokens: 40},
			model: "gemini-3-flash-preview",
		},
		{
			name: "max tokens", fixture: "max_tokens.sse",
			content: "1. alpha\n2. be", finish: "length", raw: "MAX_TOKENS",
			usage: providers.Usage{InputTokens: 15, OutputTokens: 16}, model: "gemini-2.5-flash",
		},
		{
			name: "safety stop after some text", fixture: "safety.sse",
			content: "I can describe the", finish: "content_filter", raw: "SAFETY",
			usage: providers.Usage{InputTokens: 22, OutputTokens: 4}, model: "gemini-2.5-flash",
		},
		{
			name: "prompt blocked, no candidates", fixture: "prompt_blocked.sse",
			finish: "content_filter", raw: "PROHIBITED_CONTENT",
			usage: providers.Usage{InputTokens: 31}, model: "gemini-2.5-flash",
		},
		{
			name: "malformed function call", fixture: "malformed_call.sse",
			finish: "error", raw: "MALFORMED_FUNCTION_CALL",
			usage: providers.Usage{InputTokens: 880}, model: "gemini-2.5-flash",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := providertest.Serve(t, providertest.WireReply{Body: providertest.ReadFixture(t, tc.fixture)})
			tr := newTestTransport(t, srv)
			var log providertest.DeltaLog
			resp, err := tr.Stream(context.Background(), providertest.SimpleRequest(), log.Add)
			if err != nil {
				t.Fatalf("Stream: %v", err)
			}
			want := &providers.Response{
				Content: tc.content, Reasoning: tc.reasoning, ToolCalls: tc.calls,
				FinishReason: tc.finish, RawFinishReason: tc.raw, Usage: tc.usage, Model: tc.model,
			}
			if tc.replay != "" {
				want.ReasoningReplay = json.RawMessage(tc.replay)
			}
			if !reflect.DeepEqual(resp, want) {
				t.Errorf("response\n%+v\nwant\n%+v\n(replay %s)", resp, want, resp.ReasoningReplay)
			}
			if log.Text.String() != tc.content || log.Reasoning.String() != tc.reasoning {
				t.Errorf("deltas %q / %q", log.Text.String(), log.Reasoning.String())
			}
			if len(log.Tools) != len(tc.calls) {
				t.Fatalf("tool deltas %+v", log.Tools)
			}
			for i, d := range log.Tools {
				if d.ToolIndex != i || d.ToolName != tc.calls[i].Name {
					t.Errorf("tool delta %d = %+v", i, d)
				}
			}
		})
	}
}

// TestStreamCut: a stream that stops inside a chunk, or between chunks
// before a finish reason, is MidStream with the partial response.
func TestStreamCut(t *testing.T) {
	bodies := map[string][]byte{
		"inside a chunk": providertest.ReadFixture(t, "cut.sse"),
		"between chunks": []byte(strings.SplitAfter(string(providertest.ReadFixture(t, "cut.sse")), "\r\n\r\n")[0]),
	}
	for name, body := range bodies {
		t.Run(name, func(t *testing.T) {
			srv, _ := providertest.Serve(t, providertest.WireReply{Body: body})
			resp, err := newTestTransport(t, srv).Stream(context.Background(), providertest.SimpleRequest(), nil)
			ae := providertest.AsAPIError(t, err)
			if resp == nil || resp.Content != "Partial answer" || resp.Usage.OutputTokens != 2 {
				t.Errorf("partial %+v", resp)
			}
			if !ae.MidStream || ae.Status != 0 || !errors.Is(err, io.ErrUnexpectedEOF) || ae.Message == "" {
				t.Errorf("err %+v", ae)
			}
		})
	}
	srv, _ := providertest.Serve(t, providertest.WireReply{Body: []byte(": nothing but a comment\n\n")})
	resp, err := newTestTransport(t, srv).Stream(context.Background(), providertest.SimpleRequest(), nil)
	if ae := providertest.AsAPIError(t, err); !ae.MidStream || !strings.Contains(ae.Message, "before any data") || resp == nil {
		t.Errorf("empty stream: %+v", ae)
	}
}

// TestStreamErrorChunk: an error object inside the stream.
func TestStreamErrorChunk(t *testing.T) {
	srv, _ := providertest.Serve(t, providertest.WireReply{Body: providertest.ReadFixture(t, "midstream_error.sse")})
	resp, err := newTestTransport(t, srv).Stream(context.Background(), providertest.SimpleRequest(), nil)
	ae := providertest.AsAPIError(t, err)
	if resp == nil || resp.Content != "Partial answer" {
		t.Errorf("partial %+v", resp)
	}
	if !ae.MidStream || ae.Status != 0 || ae.Code != "UNAVAILABLE" || ae.Message != "The model is overloaded. Please try again later." || !strings.Contains(ae.Body, "UNAVAILABLE") {
		t.Errorf("err %+v", ae)
	}
}

// TestStreamGarbage: a data line that is not JSON.
func TestStreamGarbage(t *testing.T) {
	srv, _ := providertest.Serve(t, providertest.WireReply{Body: []byte("data: <html>oops</html>\n\n")})
	_, err := newTestTransport(t, srv).Stream(context.Background(), providertest.SimpleRequest(), nil)
	if ae := providertest.AsAPIError(t, err); !ae.MidStream || ae.Body != "<html>oops</html>" || errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("err %+v", ae)
	}
}

// TestSSEFraming: LF and CRLF line ends, comments, event/id fields,
// multi-line data, a line longer than the read buffer, and a last event
// without a blank line after it.
func TestSSEFraming(t *testing.T) {
	long := strings.Repeat("x", 200<<10)
	chunk := func(text string) string {
		b, _ := json.Marshal(map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"parts": []any{map[string]any{"text": text}}}}}})
		return string(b)
	}
	body := ": keep-alive\n\nevent: message\nid: 1\ndata: " + chunk("a") + "\r\n\r\n" +
		"data: {\"candidates\": [{\"content\":\ndata: {\"parts\": [{\"text\": \"b\"}]}}]}\n\n" +
		"retry: 100\ndata: " + chunk(long) + "\n\n" +
		`data: {"candidates": [{"finishReason": "STOP"}]}`
	srv, _ := providertest.Serve(t, providertest.WireReply{Body: []byte(body)})
	resp, err := newTestTransport(t, srv).Stream(context.Background(), providertest.SimpleRequest(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Content != "ab"+long || resp.FinishReason != "stop" {
		t.Errorf("content %d bytes, finish %q", len(resp.Content), resp.FinishReason)
	}
}

// TestPlainJSONAnswer: a server that ignores alt=sse and answers with the
// JSON array of chunks (streamGenerateContent without alt=sse).
func TestPlainJSONAnswer(t *testing.T) {
	var chunks []json.RawMessage
	for _, line := range strings.Split(string(providertest.ReadFixture(t, "tool_calls.sse")), "\r\n\r\n") {
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			chunks = append(chunks, json.RawMessage(d))
		}
	}
	body, _ := json.Marshal(chunks)
	srv, _ := providertest.Serve(t, providertest.WireReply{Headers: map[string]string{"Content-Type": "application/json; charset=UTF-8"}, Body: body})
	var log providertest.DeltaLog
	resp, err := newTestTransport(t, srv).Stream(context.Background(), providertest.SimpleRequest(), log.Add)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.ToolCalls) != 2 || resp.FinishReason != "tool_calls" || len(log.Tools) != 2 || log.Text.String() != "Let me look at both files." {
		t.Errorf("resp %+v", resp)
	}

	for name, b := range map[string]string{
		"error object": `{"error":{"code":400,"message":"bad","status":"INVALID_ARGUMENT"}}`,
		"not gemini":   `{"hello":"world"}`,
		"unfinished":   `[{"candidates":[{"content":{"parts":[{"text":"x"}]}}]}]`,
	} {
		srv, _ := providertest.Serve(t, providertest.WireReply{Headers: map[string]string{"Content-Type": "application/json"}, Body: []byte(b)})
		_, err := newTestTransport(t, srv).Stream(context.Background(), providertest.SimpleRequest(), nil)
		if ae := providertest.AsAPIError(t, err); ae.Message == "" {
			t.Errorf("%s: %+v", name, ae)
		}
	}
}

// TestStreamCancel: cancelling the context mid-stream ends Stream with an
// error that errors.Is recognizes, and the partial response.
func TestStreamCancel(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	body := providertest.ReadFixture(t, "text_thoughts.sse")
	srv, _ := providertest.Serve(t, providertest.WireReply{Body: body, Hold: hold, HoldAt: len(body) / 2})
	ctx, cancel := context.WithCancel(context.Background())
	// Cancel on the first delta: the rest of the body is held back.
	resp, err := newTestTransport(t, srv).Stream(ctx, providertest.SimpleRequest(), func(providers.Delta) { cancel() })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if ae := providertest.AsAPIError(t, err); !ae.MidStream || resp == nil || resp.Reasoning == "" {
		t.Errorf("err %+v resp %+v", ae, resp)
	}

	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	_, err = newTestTransport(t, srv).Stream(ctx, providertest.SimpleRequest(), nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("pre-cancelled: %v", err)
	}
}
