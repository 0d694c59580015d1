package responses

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"talaria/providers"
)

// Stream posts req to {base}/responses with "stream": true and assembles
// the answer, calling onDelta (when non-nil) for output text, reasoning
// summary text and the start of each function call. Every error is a
// *providers.APIError: an HTTP error carries status, headers, raw body,
// message, type and code; an "error" event or response.failed is MidStream
// (Status 0) and comes with the partial Response, as does a stream that
// ends before response.completed or response.incomplete (wrapping
// io.ErrUnexpectedEOF). A cancelled ctx stays visible through errors.Is.
func (t *transport) Stream(ctx context.Context, req providers.Request, onDelta func(providers.Delta)) (*providers.Response, error) {
	body, err := t.buildBody(req)
	if err != nil {
		return nil, providers.LocalError(t.ep.Provider, err)
	}
	res, e := providers.PostJSON(ctx, t.client, t.ep.Provider, t.url, t.url,
		"check that the server is running and base_url is right", body,
		"Accept", "text/event-stream", "Authorization", providers.Bearer(t.ep.APIKey))
	// Error bodies are {"error":{"type","code","message","param"}} (OpenAI and
	// compatible servers), {"error":"msg"} or a JSON array of those.
	answer := providers.StreamAnswer{Provider: t.ep.Provider, Fill: providers.FillError,
		Plain: normalize, NotAnswer: "the server did not answer with a response stream, check base_url", Events: t.readStream}
	return answer.Read(ctx, res, e, onDelta)
}

// readStream reads the events of an open stream.
func (t *transport) readStream(ctx context.Context, h http.Header, body io.Reader, onDelta func(providers.Delta)) (*providers.Response, error) {
	a := newAssembler(onDelta)
	events := providers.JSONEvents[event]{Provider: t.ep.Provider, Done: "[DONE]", Known: handled, ErrorEvent: t.eventError,
		Advice: "check that the server speaks the OpenAI Responses format"}
	err := events.Read(ctx, h, body, func(name, data []byte, ev *event) (bool, error) {
		if ev.Type == "" {
			ev.Type = string(name)
		}
		switch ev.Type {
		case "error":
			return true, t.eventError(h, data)
		case "response.failed":
			a.setResponse(ev.Response)
			a.status = "failed"
			return true, t.failedError(h, data)
		}
		a.add(ev)
		return a.terminal, nil
	})
	return a.response(), providers.EndOfStream(ctx, t.ep.Provider, h, err, a.terminal, a.sawEvent,
		"an OpenAI Responses endpoint", "response.completed")
}

// handled reports whether an event that failed to decode is of a type this
// transport reads (so the failure matters).
func handled(_, data []byte) bool {
	var probe struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(data, &probe) != nil {
		return true
	}
	switch probe.Type {
	case "response.output_item.added", "response.output_item.done", "response.output_text.delta",
		"response.refusal.delta", "response.function_call_arguments.delta", "response.function_call_arguments.done",
		"response.reasoning_summary_text.delta", "response.reasoning_text.delta",
		"response.completed", "response.incomplete", "response.failed", "error":
		return true
	}
	return false
}

// normalize assembles a complete response object.
func normalize(raw []byte, onDelta func(providers.Delta)) (*providers.Response, error) {
	var r wireResponse
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("decode response: %w", err)
	}
	if r.Status == "" && len(r.Output) == 0 {
		return nil, errors.New("not a response object: no status, no output")
	}
	if eb, failed := providers.ParseErrorBody(raw); r.Status == "failed" && failed {
		return nil, fmt.Errorf("response failed: %s", eb.Message)
	}
	a := newAssembler(onDelta)
	a.setResponse(&r)
	for i, item := range r.Output {
		a.itemDone(item, i)
	}
	a.terminal = true
	return a.response(), nil
}
