package openaichat

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"talaria/providers"
	"talaria/providers/sse"
)

// doneMarker is the data of the event that ends a stream.
const doneMarker = "[DONE]"

// Stream sends req as a streamed chat completion and assembles the answer,
// calling onDelta (when non-nil) for text, reasoning and the first sighting
// of each tool call. The body is built from go-openai's request types (see
// encodeRequest); the event stream is read with providers/sse. Every error
// is a *providers.APIError: HTTP errors carry the status, headers and raw
// body; errors after the stream started are MidStream and come with the
// partial Response. A stream that ends without a finish reason or without
// data: [DONE] is such an error, wrapping io.ErrUnexpectedEOF. A cancelled
// ctx stays visible through errors.Is.
func (t *chatTransport) Stream(ctx context.Context, req providers.Request, onDelta func(providers.Delta)) (*providers.Response, error) {
	body, err := t.encodeRequest(req)
	if err != nil {
		return nil, &providers.APIError{Provider: t.ep.Provider, Message: err.Error(), Err: err}
	}
	res, e := providers.PostJSON(ctx, t.client, t.ep.Provider, t.baseURL+"/chat/completions", t.baseURL,
		"check that the server is running and base_url is right", body,
		"Accept", "text/event-stream", "Authorization", providers.Bearer(t.ep.APIKey))
	if e != nil {
		return nil, e
	}
	defer res.Body.Close()
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return nil, t.httpError(ctx, res)
	}
	h := res.Header.Clone()
	br, stream := sse.Open(res)
	if !stream {
		return t.plainResponse(ctx, res.StatusCode, h, br, onDelta)
	}
	return t.readStream(ctx, h, br, onDelta)
}

// readStream reads data events until data: [DONE] or the end of the body.
func (t *chatTransport) readStream(ctx context.Context, h http.Header, body io.Reader, onDelta func(providers.Delta)) (*providers.Response, error) {
	a := newAssembler(onDelta)
	rd := sse.NewReader(body)
	sawDone := false
	for !sawDone {
		_, data, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return a.response(), providers.ReadFailed(ctx, t.ep.Provider, h, err)
		}
		data = bytes.TrimSpace(data)
		switch {
		case len(data) == 0:
			continue // an empty data: line
		case string(data) == doneMarker:
			sawDone = true
			continue
		}
		var c chunk
		if err := json.Unmarshal(data, &c); err != nil {
			return a.response(), &providers.APIError{
				Provider:  t.ep.Provider,
				Headers:   h,
				MidStream: true,
				Body:      providers.TruncateBody(data, providers.MaxQuotedBody),
				Message:   fmt.Sprintf("cannot decode a stream chunk (%v); check that the server speaks the OpenAI chat completions format", err),
				Err:       err,
			}
		}
		a.add(&c)
		if hasError(c.Error) || c.Object == "error" {
			return a.response(), t.chunkError(h, data)
		}
	}
	resp := a.response()
	switch {
	case !a.sawChunk && !sawDone:
		return resp, providers.StreamCutError(ctx, t.ep.Provider, h, "before any data event (is base_url an OpenAI-compatible /v1 endpoint?)")
	case !sawDone && resp.RawFinishReason == "":
		return resp, providers.StreamCutError(ctx, t.ep.Provider, h, "before a finish reason and before data: [DONE]")
	case !sawDone:
		return resp, providers.StreamCutError(ctx, t.ep.Provider, h, "without data: [DONE]")
	case resp.RawFinishReason == "" && !a.refusal:
		return resp, providers.StreamCutError(ctx, t.ep.Provider, h, "without a finish reason")
	}
	return resp, nil
}

// plainResponse handles a 2xx answer that was a whole document rather than
// a stream: a server that ignored stream:true (a chat completion), an
// error reported with 200, or an HTML page.
func (t *chatTransport) plainResponse(ctx context.Context, status int, h http.Header, body io.Reader, onDelta func(providers.Delta)) (*providers.Response, error) {
	raw, err := io.ReadAll(io.LimitReader(body, providers.MaxPlainBody))
	if err != nil {
		return &providers.Response{}, providers.MidStreamError(t.ep.Provider, h, "reading the response failed: "+err.Error(), providers.WithContext(ctx, err))
	}
	if e := (&providers.APIError{Provider: t.ep.Provider, Status: status, Headers: h}); fillError(e, raw) {
		return nil, e
	}
	resp, err := decodeFullResponse(raw)
	if err != nil || (resp.RawFinishReason == "" && resp.Content == "" && len(resp.ToolCalls) == 0) {
		return nil, &providers.APIError{
			Provider: t.ep.Provider, Status: status, Headers: h,
			Body:    providers.TruncateBody(raw, providers.MaxQuotedBody),
			Message: providers.SummarizePage(status, raw) + "; the server did not answer with a chat completion, check base_url",
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
