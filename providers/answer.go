package providers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"talaria/providers/sse"
)

// StreamAnswer is how a server-sent-events wire reads the answer to a
// streamed request; Read is the part every such wire shares (status, plain
// document or event stream, read errors).
type StreamAnswer struct {
	Provider string
	// Fill reads the wire's error bodies (FillError or its own): a non-2xx
	// answer is HTTPError with Fill, and a 2xx whole document that is an
	// error body is that error.
	Fill func(*APIError, []byte) bool
	// Plain decodes a 2xx whole document (a server that ignored "stream":
	// true) and reports its deltas; an error means it is not an answer.
	Plain func(raw []byte, onDelta func(Delta)) (*Response, error)
	// NotAnswer ends the message of a document Plain refused, e.g. "the
	// server did not answer with a message stream, check base_url".
	NotAnswer string
	// Events reads an event stream (see ReadEvents); h is a copy of the
	// answer's headers.
	Events func(ctx context.Context, h http.Header, body io.Reader, onDelta func(Delta)) (*Response, error)
}

// Read reads res, PostJSON's answer (e its error), closing the body, and
// hands onDelta to Plain or Events: a
// non-2xx status is HTTPError's error (the body read by Fill); a 2xx event stream (by its
// Content-Type, or by its first bytes) goes to Events, any other 2xx body
// to Plain, read up to MaxPlainBody. An error object in a plain 2xx body is
// returned as that error, with the status; a document that is not an
// answer is an APIError quoting it.
func (s *StreamAnswer) Read(ctx context.Context, res *http.Response, e *APIError, onDelta func(Delta)) (*Response, error) {
	if e := Answered(ctx, s.Provider, res, e, s.Fill); e != nil {
		return nil, e
	}
	defer res.Body.Close()
	h := res.Header.Clone()
	br, stream := sse.Open(res)
	if stream {
		return s.Events(ctx, h, br, onDelta)
	}
	raw, err := io.ReadAll(io.LimitReader(br, MaxPlainBody))
	if err != nil {
		return nil, MidStreamError(s.Provider, h, "reading the response failed: "+err.Error(), WithContext(ctx, err))
	}
	if e := (&APIError{Provider: s.Provider, Status: res.StatusCode, Headers: h}); s.Fill(e, raw) {
		return nil, e
	}
	resp, err := s.Plain(raw, onDelta)
	if err != nil {
		return nil, &APIError{
			Provider: s.Provider, Status: res.StatusCode, Headers: h,
			Body:    TruncateBody(raw, MaxQuotedBody),
			Message: SummarizePage(res.StatusCode, raw) + "; " + s.NotAnswer,
			Err:     err,
		}
	}
	return resp, nil
}

// Answered sorts the outcome of PostJSON (res, or e when the request got
// no answer): e itself; for a non-2xx answer, HTTPError's error with fill
// (the body read and closed); nil for a 2xx answer, whose body the caller
// reads and closes.
func Answered(ctx context.Context, provider string, res *http.Response, e *APIError, fill func(*APIError, []byte) bool) *APIError {
	if e != nil {
		return e
	}
	if res.StatusCode < 200 || res.StatusCode > 299 {
		defer res.Body.Close()
		return HTTPError(ctx, provider, res, fill)
	}
	return nil
}

// ReadEvents calls fn with the name and the data (trimmed) of each event
// of an event stream that has data, until fn reports done or an error, or
// the stream ends. It returns fn's error, ReadFailed's when reading fails,
// and nil at the end of the body (the caller decides whether the stream
// was complete).
func ReadEvents(ctx context.Context, provider string, h http.Header, body io.Reader, fn func(name, data []byte) (done bool, err error)) error {
	rd := sse.NewReader(body)
	for {
		name, data, err := rd.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return ReadFailed(ctx, provider, h, err)
		}
		if data = bytes.TrimSpace(data); len(data) == 0 {
			continue
		}
		if done, err := fn(name, data); done || err != nil {
			return err
		}
	}
}

// JSONEvents reads an event stream whose events carry JSON of one type E
// (the Anthropic Messages and OpenAI Responses wires).
type JSONEvents[E any] struct {
	Provider string
	// Done is the data of the event that ends the stream ("[DONE]"); ""
	// when none does.
	Done string
	// Known, ErrorEvent and Advice are DecodeEvent's: whether an event
	// that does not decode is of a kind the wire reads, the error of an
	// "error" event, and what to check.
	Known      func(name, data []byte) bool
	ErrorEvent func(http.Header, []byte) *APIError
	Advice     string
}

// Read calls fn with the name, the data and the decoded event (a fresh E
// each time) of each event of the stream, as ReadEvents does, until fn
// reports done or an error, the Done event arrives or the stream ends. An
// event that does not decode is skipped or is an error, as DecodeEvent
// says.
func (j *JSONEvents[E]) Read(ctx context.Context, h http.Header, body io.Reader, fn func(name, data []byte, ev *E) (done bool, err error)) error {
	var ev E
	return ReadEvents(ctx, j.Provider, h, body, func(name, data []byte) (bool, error) {
		if j.Done != "" && string(data) == j.Done {
			return true, nil
		}
		var fresh E
		ev = fresh
		skip, err := DecodeEvent(j.Provider, h, name, data, &ev, j.Known, j.ErrorEvent, j.Advice)
		if skip || err != nil {
			return err != nil, err // an event of a kind the wire does not read is skipped
		}
		return fn(name, data, &ev)
	})
}

// DecodeEvent decodes the data of a stream event named name into v. An
// event that does not decode is skipped (skip) when known reports that its
// kind is not one the wire reads; otherwise it is an error: errorEvent's
// for an event named "error", else a MidStream error quoting the event and
// ending with advice (what to check).
func DecodeEvent(provider string, h http.Header, name, data []byte, v any, known func(name, data []byte) bool,
	errorEvent func(http.Header, []byte) *APIError, advice string) (skip bool, err error) {
	derr := json.Unmarshal(data, v)
	switch {
	case derr == nil:
		return false, nil
	case string(name) == "error":
		return false, errorEvent(h, data)
	case !known(name, data):
		return true, nil
	}
	e := MidStreamError(provider, h, fmt.Sprintf("cannot decode a stream event (%v); %s", derr, advice), derr)
	e.Body = TruncateBody(data, MaxQuotedBody)
	return false, e
}
