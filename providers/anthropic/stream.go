package anthropic

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"talaria/providers"
	"talaria/providers/sse"
)

// Limits on what is read into memory outside the event stream.
const (
	maxPlainBody   = 64 << 20 // a 2xx JSON body answering a stream request
	maxBodyInError = 4 << 10  // an undecodable event quoted in an error
)

// ErrEmptyResponse is wrapped by ValidateResponse when a response carries
// nothing at all: no content, no tool calls, no reasoning, no stop reason.
var ErrEmptyResponse = errors.New("empty response")

// callState is what one Stream call learns from the HTTP layer: the SDK's
// middleware hook fills it for that call only, so concurrent calls never
// share one.
type callState struct {
	status  int
	headers http.Header
	errBody []byte // the body of a non-2xx response
}

// capture is an SDK middleware that records status and headers, and keeps
// the body of an error response (put back for the SDK to read again).
func (st *callState) capture(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	resp, err := next(req)
	if err != nil || resp == nil {
		return resp, err
	}
	st.status = resp.StatusCode
	st.headers = resp.Header.Clone()
	if resp.StatusCode >= 300 && resp.Body != nil {
		st.errBody, _ = io.ReadAll(io.LimitReader(resp.Body, providers.MaxErrorBody))
		_ = resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(st.errBody))
	}
	return resp, nil
}

// Stream sends req to /v1/messages with "stream": true and assembles the
// answer, calling onDelta (when non-nil) for text, thinking and the start
// of each tool call. Every error is a *providers.APIError: an HTTP error
// carries status, headers (retry-after, anthropic-ratelimit-*,
// x-should-retry), raw body, message and type; an error event inside the
// stream (overloaded_error) is MidStream, with Status 0, and comes with the
// partial Response, as does a stream cut before its stop_reason (wrapping
// io.ErrUnexpectedEOF). A cancelled ctx stays visible through errors.Is.
func (t *transport) Stream(ctx context.Context, req providers.Request, onDelta func(providers.Delta)) (*providers.Response, error) {
	params, err := t.buildParams(req)
	if err != nil {
		return nil, &providers.APIError{Provider: t.ep.Provider, Message: err.Error(), Err: err}
	}
	st := &callState{}
	var res *http.Response
	err = t.client.Post(ctx, "v1/messages", params, &res,
		option.WithJSONSet("stream", true),
		option.WithHeader("Accept", "text/event-stream"),
		option.WithMiddleware(st.capture))
	if err != nil {
		if res != nil && res.Body != nil {
			_ = res.Body.Close()
		}
		return nil, t.requestError(ctx, st, err)
	}
	defer res.Body.Close()

	br := bufio.NewReaderSize(res.Body, 64<<10)
	if !sse.IsEventStream(res.Header.Get("Content-Type")) && !sse.LooksLikeStream(br) {
		return t.plainResponse(st, br, onDelta)
	}
	a := newAssembler(onDelta)
	rd := sse.NewReader(br)
	var ev event
	for !a.finished {
		name, data, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return a.response(), providers.MidStreamError(t.ep.Provider, st.headers, "reading the stream failed: "+err.Error()+"; retry the request", providers.WithContext(ctx, err))
		}
		data = bytes.TrimSpace(data)
		if len(data) == 0 || string(name) == "ping" {
			continue
		}
		ev = event{}
		if err := json.Unmarshal(data, &ev); err != nil {
			if string(name) == "error" {
				return a.response(), t.eventError(st, data, nil)
			}
			if !handled(name, data) {
				continue // an event of a kind this transport does not read
			}
			e := providers.MidStreamError(t.ep.Provider, st.headers, fmt.Sprintf("cannot decode a stream event (%v); check that the server speaks the Anthropic Messages format", err), err)
			e.Body = providers.TruncateBody(data, maxBodyInError)
			return a.response(), e
		}
		if ev.Type == "error" || string(name) == "error" {
			return a.response(), t.eventError(st, data, ev.Error)
		}
		if ev.Type == "" {
			ev.Type = string(name)
		}
		a.add(&ev)
	}
	resp := a.response()
	switch {
	case a.finished || a.stop != "":
		return resp, nil
	case !a.started:
		return resp, providers.StreamCutError(ctx, t.ep.Provider, st.headers, "before any event (is base_url an Anthropic Messages endpoint?)")
	default:
		return resp, providers.StreamCutError(ctx, t.ep.Provider, st.headers, "before its stop_reason")
	}
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

// plainResponse handles a 2xx answer that was a whole JSON document rather
// than a stream: an error object, or a complete message from a server that
// ignored "stream": true.
func (t *transport) plainResponse(st *callState, body io.Reader, onDelta func(providers.Delta)) (*providers.Response, error) {
	raw, err := io.ReadAll(io.LimitReader(body, maxPlainBody))
	if err != nil {
		return nil, providers.MidStreamError(t.ep.Provider, st.headers, "reading the response failed: "+err.Error(), err)
	}
	if we, ok := parseErrorBody(raw); ok {
		return nil, &providers.APIError{
			Provider: t.ep.Provider, Status: st.status, Headers: st.headers,
			Body: string(raw), Message: we.Message, Type: we.Type, Code: we.code(),
		}
	}
	var m wireMessage
	if err := json.Unmarshal(raw, &m); err != nil || (m.StopReason == "" && len(m.Content) == 0) {
		return nil, &providers.APIError{
			Provider: t.ep.Provider, Status: st.status, Headers: st.headers,
			Body:    providers.TruncateBody(raw, maxBodyInError),
			Message: providers.SummarizePage(st.status, raw) + "; the server did not answer with a message stream, check base_url",
			Err:     err,
		}
	}
	a := newAssembler(onDelta)
	a.addComplete(&m)
	return a.response(), nil
}

// NormalizeResponse turns a complete (non-streamed) message into a
// Response. raw may be an sdk.Message (or a pointer to one), or the
// response body as []byte / json.RawMessage.
func (t *transport) NormalizeResponse(raw any) (*providers.Response, error) {
	body, err := responseJSON(raw)
	if err != nil {
		return nil, err
	}
	if we, ok := parseErrorBody(body); ok {
		return nil, fmt.Errorf("response is an error object (%s: %s), not a message", we.Type, we.Message)
	}
	var m wireMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, fmt.Errorf("decode message: %w", err)
	}
	a := newAssembler(nil)
	a.addComplete(&m)
	return a.response(), nil
}

// CacheStats returns the prompt-cache reads (cache_read_input_tokens) and
// writes (cache_creation_input_tokens) of a complete message, given as for
// NormalizeResponse.
func (t *transport) CacheStats(raw any) (read, write int) {
	body, err := responseJSON(raw)
	if err != nil {
		return 0, 0
	}
	var m wireMessage
	if json.Unmarshal(body, &m) != nil || m.Usage == nil {
		return 0, 0
	}
	return deref(m.Usage.CacheReadInputTokens), deref(m.Usage.CacheCreationInputTokens)
}

// ValidateResponse rejects a response that carries nothing at all (no
// content, tool calls, reasoning or stop reason); the error wraps
// ErrEmptyResponse.
func (t *transport) ValidateResponse(r *providers.Response) error {
	if r.Empty() {
		return fmt.Errorf("%s: %w: no content, tool calls, thinking or stop reason; retry the request", t.ep.Provider, ErrEmptyResponse)
	}
	return nil
}

// responseJSON gives the JSON text of a complete message.
func responseJSON(raw any) ([]byte, error) {
	switch v := raw.(type) {
	case []byte:
		return v, nil
	case json.RawMessage:
		return v, nil
	case sdk.Message:
		return messageJSON(&v)
	case *sdk.Message:
		if v == nil {
			return nil, errors.New("nil *anthropic.Message")
		}
		return messageJSON(v)
	default:
		return nil, fmt.Errorf("cannot normalize %T: want anthropic.Message or its JSON", raw)
	}
}

func messageJSON(m *sdk.Message) ([]byte, error) {
	if s := m.RawJSON(); s != "" {
		return []byte(s), nil
	}
	return json.Marshal(m)
}
