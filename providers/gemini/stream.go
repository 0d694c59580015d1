package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"

	"talaria/providers"
	"talaria/providers/sse"
)

// Stream sends req to streamGenerateContent?alt=sse and assembles the
// answer, calling onDelta (when non-nil) for text, thought text and each
// function call (whole, one per part). Every error is a
// *providers.APIError: HTTP errors as described at fillHTTPError; an error
// object inside the stream, an undecodable chunk, a broken connection or a
// stream that ends before a finishReason (or a promptFeedback.blockReason)
// are MidStream and come with the partial Response. A server that answers
// with a JSON document instead of a stream (the array of chunks) is read
// the same way. A cancelled ctx stays visible through errors.Is.
func (t *geminiTransport) Stream(ctx context.Context, req providers.Request, onDelta func(providers.Delta)) (*providers.Response, error) {
	model, err := t.model(req)
	if err != nil {
		return nil, providers.LocalError(t.ep.Provider, err)
	}
	body, err := buildRequest(req, t.ep.Model)
	if err != nil {
		return nil, providers.LocalError(t.ep.Provider, err)
	}
	resp, e := providers.PostJSON(ctx, t.client, t.ep.Provider, t.streamURL(model), t.baseURL, "check the network and base_url", body,
		"Accept", "text/event-stream", "X-Goog-Api-Key", t.apiKey)
	if e := providers.Answered(ctx, t.ep.Provider, resp, e, fillHTTPError); e != nil {
		return nil, e
	}
	defer resp.Body.Close()
	h := resp.Header.Clone()
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "application/json" {
		return t.readPlain(ctx, resp, h, onDelta)
	}
	return t.readSSE(ctx, resp.Body, h, onDelta)
}

// readSSE reads the event stream chunk by chunk.
func (t *geminiTransport) readSSE(ctx context.Context, body io.Reader, h http.Header, onDelta func(providers.Delta)) (*providers.Response, error) {
	a := newAssembler(onDelta)
	rd := sse.NewReader(body)
	for {
		_, data, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return a.response(), t.cutError(ctx, h, err, "while reading")
		}
		if data = bytes.TrimSpace(data); len(data) == 0 {
			continue
		}
		var chunk generateResponse
		if derr := json.Unmarshal(data, &chunk); derr != nil {
			if rd.Cut() {
				return a.response(), t.cutError(ctx, h, io.ErrUnexpectedEOF, "inside a chunk")
			}
			return a.response(), &providers.APIError{
				Provider: t.ep.Provider, Headers: h, MidStream: true,
				Body:    providers.TruncateBody(data, providers.MaxQuotedBody),
				Message: fmt.Sprintf("cannot decode a stream chunk (%v); check that base_url is the Gemini API", derr),
				Err:     providers.WithContext(ctx, derr),
			}
		}
		if chunk.hasError() {
			e := &providers.APIError{Provider: t.ep.Provider, Headers: h, MidStream: true}
			fillError(e, data)
			return a.response(), e
		}
		a.add(&chunk)
	}
	if !a.done() {
		what := "before a finish reason"
		if !a.sawChunk {
			what = "before any data event"
		}
		return a.response(), t.cutError(ctx, h, io.ErrUnexpectedEOF, what)
	}
	return a.response(), nil
}

// readPlain reads a JSON answer (one response or an array of chunks).
func (t *geminiTransport) readPlain(ctx context.Context, resp *http.Response, h http.Header, onDelta func(providers.Delta)) (*providers.Response, error) {
	body, err := io.ReadAll(io.LimitReader(resp.Body, providers.MaxPlainBody))
	if err != nil {
		return &providers.Response{}, t.cutError(ctx, h, err, "while reading")
	}
	if e := (&providers.APIError{Provider: t.ep.Provider, Status: resp.StatusCode, Headers: h}); fillError(e, body) {
		return nil, e
	}
	chunks, err := decodeWhole(body)
	if err != nil {
		return nil, &providers.APIError{
			Provider: t.ep.Provider, Status: resp.StatusCode, Headers: h,
			Body:    providers.TruncateBody(body, providers.MaxQuotedBody),
			Message: err.Error() + "; check that base_url is the Gemini API",
			Err:     err,
		}
	}
	a := newAssembler(onDelta)
	for i := range chunks {
		a.add(&chunks[i])
	}
	if !a.done() {
		return a.response(), t.cutError(ctx, h, io.ErrUnexpectedEOF, "before a finish reason")
	}
	return a.response(), nil
}
