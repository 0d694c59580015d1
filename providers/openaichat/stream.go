package openaichat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"talaria/providers"
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
	body, err := t.encodeBody(req)
	if err != nil {
		return nil, providers.LocalError(t.ep.Provider, err)
	}
	defer body.Release()
	res, e := providers.PostJSON(ctx, t.client, t.ep.Provider, t.baseURL+"/chat/completions", t.baseURL,
		"check that the server is running and base_url is right", body,
		"Accept", "text/event-stream", "Authorization", providers.Bearer(t.ep.APIKey))
	answer := providers.StreamAnswer{Provider: t.ep.Provider, Fill: fillError,
		Plain: plainResponse, NotAnswer: "the server did not answer with a chat completion, check base_url", Events: t.readStream}
	return answer.Read(ctx, res, e, onDelta)
}

// readStream reads data events until data: [DONE] or the end of the body.
func (t *chatTransport) readStream(ctx context.Context, h http.Header, body io.Reader, onDelta func(providers.Delta)) (*providers.Response, error) {
	a := newAssembler(onDelta)
	sawDone := false
	err := providers.ReadEvents(ctx, t.ep.Provider, h, body, func(_, data []byte) (bool, error) {
		if string(data) == doneMarker {
			sawDone = true
			return true, nil
		}
		var c chunk
		if err := json.Unmarshal(data, &c); err != nil {
			return true, &providers.APIError{
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
			return true, t.chunkError(h, data)
		}
		return false, nil
	})
	resp := a.response()
	switch {
	case err != nil:
		return resp, err
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

// plainResponse decodes a 2xx answer that was a whole chat completion
// rather than a stream (a server that ignored stream:true) and reports its
// deltas; a document that holds no answer is an error.
func plainResponse(raw []byte, onDelta func(providers.Delta)) (*providers.Response, error) {
	resp, err := decodeFullResponse(raw)
	if err != nil {
		return nil, err
	}
	if resp.RawFinishReason == "" && resp.Content == "" && len(resp.ToolCalls) == 0 {
		return nil, errors.New("no finish reason, content or tool call")
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
