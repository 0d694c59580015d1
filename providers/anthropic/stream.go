package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"talaria/providers"
)

// errSplicedStream is wrapped by the error of a stream that starts a second
// message before the first one stopped (a spliced or restarted stream).
var errSplicedStream = errors.New("a second message_start inside the message")

// Stream sends req to /v1/messages with "stream": true and assembles the
// answer, calling onDelta (when non-nil) for text, thinking and the start
// of each tool call. Every error is a *providers.APIError: an HTTP error
// carries status, headers (retry-after, anthropic-ratelimit-*,
// x-should-retry), raw body, message and type; an error event inside the
// stream (overloaded_error) is MidStream, with Status 0, and comes with the
// partial Response, as does a stream cut before its stop_reason (wrapping
// io.ErrUnexpectedEOF) and a stream that starts a second message before the
// first one stopped. A cancelled ctx stays visible through errors.Is.
func (t *transport) Stream(ctx context.Context, req providers.Request, onDelta func(providers.Delta)) (*providers.Response, error) {
	body, err := t.buildRequest(req)
	if err != nil {
		return nil, providers.LocalError(t.ep.Provider, err)
	}
	res, e := providers.PostJSON(ctx, t.client, t.ep.Provider, t.baseURL+"/v1/messages", t.baseURL,
		"check that the server is running and base_url is right", body,
		"Accept", "text/event-stream", "Anthropic-Version", apiVersion, "X-Api-Key", t.ep.APIKey)
	// A non-2xx error body is {"type":"error","error":{"type","message"},"request_id"}
	// (without the top-level type from the edge); FillError reads its message,
	// type and details.error_code as Code (enforced_spend_limit_reached, ...).
	answer := providers.StreamAnswer{Provider: t.ep.Provider, Fill: providers.FillError,
		Plain: plainMessage, NotAnswer: "the server did not answer with a message stream, check base_url", Events: t.readStream}
	return answer.Read(ctx, res, e, onDelta)
}

// plainMessage decodes a 2xx answer that was a whole message rather than a
// stream (a server that ignored "stream": true).
func plainMessage(raw []byte, onDelta func(providers.Delta)) (*providers.Response, error) {
	m, err := decodeMessage(raw)
	if err != nil {
		return nil, err
	}
	a := newAssembler(onDelta)
	a.addComplete(m)
	return a.response(), nil
}

// readStream reads the event stream until message_stop or its end.
func (t *transport) readStream(ctx context.Context, h http.Header, body io.Reader, onDelta func(providers.Delta)) (*providers.Response, error) {
	a := newAssembler(onDelta)
	events := providers.JSONEvents[event]{Provider: t.ep.Provider, Known: handled, ErrorEvent: t.eventError,
		Advice: "check that the server speaks the Anthropic Messages format"}
	err := events.Read(ctx, h, body, func(name, data []byte, ev *event) (bool, error) {
		if ev.Type == "error" || string(name) == "error" {
			return true, t.eventError(h, data)
		}
		if ev.Type == "" {
			ev.Type = string(name)
		}
		if ev.Type == "message_start" && a.started {
			return true, providers.MidStreamError(t.ep.Provider, h,
				"the stream started a second message before the first one stopped (a spliced or restarted stream); the response is unusable, retry the request",
				errSplicedStream)
		}
		a.add(ev) // a ping, like any unknown event, adds nothing
		return a.finished, nil
	})
	return a.response(), providers.EndOfStream(ctx, t.ep.Provider, h, err, a.finished || a.stop != "", a.started,
		"an Anthropic Messages endpoint", "its stop_reason")
}

// handled reports whether an event that failed to decode is of a type this
// transport reads (so the failure matters); unknown events are skipped even
// when their fields do not fit.
func handled(name, data []byte) bool {
	var probe struct {
		Type string `json:"type"`
	}
	typ := string(name)
	if json.Unmarshal(data, &probe) == nil && probe.Type != "" {
		typ = probe.Type
	}
	switch typ {
	case "message_start", "content_block_start", "content_block_delta", "content_block_stop",
		"message_delta", "message_stop", "error", "":
		return true
	}
	return false
}

// errNotMessage is the error of a JSON document that is not a message.
var errNotMessage = errors.New("not a message: no content and no stop_reason")

// decodeMessage decodes a complete (non-streamed) message.
func decodeMessage(raw []byte) (*wireMessage, error) {
	var m wireMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	if m.StopReason == "" && len(m.Content) == 0 {
		return nil, errNotMessage
	}
	return &m, nil
}
