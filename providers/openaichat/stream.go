package openaichat

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"talaria/providers"
)

// maxBodyInError bounds how much of an undecodable chunk goes into an error.
const maxBodyInError = 4 << 10

// Stream sends req as a streamed chat completion and assembles the answer,
// calling onDelta (when non-nil) for text, reasoning and the first sighting
// of each tool call. Every error is a *providers.APIError: HTTP errors carry
// the status, headers and raw body; errors after the stream started are
// MidStream and come with the partial Response. A stream that ends without
// a finish reason or without data: [DONE] is such an error, wrapping
// io.ErrUnexpectedEOF. A cancelled ctx stays visible through errors.Is.
func (t *chatTransport) Stream(ctx context.Context, req providers.Request, onDelta func(providers.Delta)) (*providers.Response, error) {
	oreq, err := t.buildRequest(req)
	if err != nil {
		return nil, &providers.APIError{Provider: t.ep.Provider, Message: err.Error(), Err: err}
	}
	st := &callState{}
	if t.replayExtra {
		if extras := collectExtras(req.Messages); len(extras) > 0 {
			st.rewrite = func(body []byte) ([]byte, error) { return addExtraContent(body, extras) }
		}
	}
	stream, err := t.client.CreateChatCompletionStream(withCallState(ctx, st), oreq)
	if err != nil {
		return nil, t.requestError(ctx, st, err)
	}
	defer stream.Close()

	a := newAssembler(onDelta)
	for {
		raw, err := stream.RecvRaw()
		if err == io.EOF {
			break
		}
		if err != nil {
			return a.response(), t.streamError(ctx, st, err)
		}
		if len(bytes.TrimSpace(raw)) == 0 {
			continue // an empty data: line
		}
		var c chunk
		if err := json.Unmarshal(raw, &c); err != nil {
			return a.response(), &providers.APIError{
				Provider:  t.ep.Provider,
				Headers:   st.headers,
				MidStream: true,
				Body:      truncate(raw, maxBodyInError),
				Message:   fmt.Sprintf("cannot decode a stream chunk (%v); check that the server speaks the OpenAI chat completions format", err),
				Err:       err,
			}
		}
		a.add(&c)
		if hasError(c.Error) || c.Object == "error" {
			return a.response(), t.chunkError(st, raw)
		}
	}
	if st.plain {
		return t.plainResponse(st, onDelta)
	}
	resp := a.response()
	switch {
	case !a.sawChunk && !st.sawDone:
		return resp, providers.StreamCutError(ctx, t.ep.Provider, st.headers, "before any data event (is base_url an OpenAI-compatible /v1 endpoint?)")
	case !st.sawDone && resp.RawFinishReason == "":
		return resp, providers.StreamCutError(ctx, t.ep.Provider, st.headers, "before a finish reason and before data: [DONE]")
	case !st.sawDone:
		return resp, providers.StreamCutError(ctx, t.ep.Provider, st.headers, "without data: [DONE]")
	case resp.RawFinishReason == "" && !a.refusal:
		return resp, providers.StreamCutError(ctx, t.ep.Provider, st.headers, "without a finish reason")
	}
	return resp, nil
}

// plainResponse handles a 2xx answer that was a whole document rather than
// a stream: a server that ignored stream:true (a chat completion), an
// error reported with 200, or an HTML page.
func (t *chatTransport) plainResponse(st *callState, onDelta func(providers.Delta)) (*providers.Response, error) {
	if f, ok := parseErrorBody(st.plainBody); ok {
		return nil, &providers.APIError{
			Provider: t.ep.Provider, Status: st.status, Headers: st.headers,
			Body: string(st.plainBody), Message: f.Message, Type: f.Type, Code: f.Code,
		}
	}
	resp, err := decodeFullResponse(st.plainBody)
	if err != nil || (resp.RawFinishReason == "" && resp.Content == "" && len(resp.ToolCalls) == 0) {
		return nil, &providers.APIError{
			Provider: t.ep.Provider, Status: st.status, Headers: st.headers,
			Body:    truncate(st.plainBody, maxBodyInError),
			Message: summarizeBody(st.status, st.plainBody) + "; the server did not answer with a chat completion, check base_url",
			Err:     err,
		}
	}
	if onDelta != nil {
		if resp.Reasoning != "" {
			onDelta(providers.Delta{Kind: providers.DeltaReasoning, Text: resp.Reasoning})
		}
		if resp.Content != "" {
			onDelta(providers.Delta{Kind: providers.DeltaText, Text: resp.Content})
		}
		for i, tc := range resp.ToolCalls {
			onDelta(providers.Delta{Kind: providers.DeltaToolCall, ToolIndex: i, ToolName: tc.Name})
		}
	}
	return resp, nil
}

// collectExtras maps tool-call ids to the extra_content to replay with them.
func collectExtras(msgs []providers.Message) map[string]json.RawMessage {
	var out map[string]json.RawMessage
	for _, m := range msgs {
		for _, tc := range m.ToolCalls {
			if m.Role != providers.RoleAssistant || len(tc.Extra) == 0 || !json.Valid(tc.Extra) {
				continue
			}
			if out == nil {
				out = map[string]json.RawMessage{}
			}
			out[tc.ID] = tc.Extra
		}
	}
	return out
}

// addExtraContent adds "extra_content" to the assistant tool calls of a
// marshalled request whose ids are in extras. go-openai's ToolCall type has
// no such field, so the body is patched on its way out.
func addExtraContent(body []byte, extras map[string]json.RawMessage) ([]byte, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return nil, fmt.Errorf("patch extra_content: %w", err)
	}
	var msgs []map[string]json.RawMessage
	if err := json.Unmarshal(top["messages"], &msgs); err != nil {
		return nil, fmt.Errorf("patch extra_content: %w", err)
	}
	for _, m := range msgs {
		raw, ok := m["tool_calls"]
		if !ok {
			continue
		}
		var calls []map[string]json.RawMessage
		if err := json.Unmarshal(raw, &calls); err != nil {
			return nil, fmt.Errorf("patch extra_content: %w", err)
		}
		for _, c := range calls {
			var id string
			_ = json.Unmarshal(c["id"], &id)
			if extra, ok := extras[id]; ok {
				c["extra_content"] = extra
			}
		}
		b, err := json.Marshal(calls)
		if err != nil {
			return nil, fmt.Errorf("patch extra_content: %w", err)
		}
		m["tool_calls"] = b
	}
	b, err := json.Marshal(msgs)
	if err != nil {
		return nil, fmt.Errorf("patch extra_content: %w", err)
	}
	top["messages"] = b
	return json.Marshal(top)
}

func truncate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}
