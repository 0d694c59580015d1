package gemini

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"

	"talaria/providers"
)

// Stream sends req to streamGenerateContent?alt=sse and assembles the
// answer, calling onDelta (when non-nil) for text, thought text and each
// function call (whole, one per part). Every error is a
// *providers.APIError: HTTP errors as described at httpError; an error
// object inside the stream, an undecodable chunk, a broken connection or a
// stream that ends before a finishReason (or a promptFeedback.blockReason)
// are MidStream and come with the partial Response. A server that answers
// with a JSON document instead of a stream (the array of chunks) is read
// the same way. A cancelled ctx stays visible through errors.Is.
func (t *geminiTransport) Stream(ctx context.Context, req providers.Request, onDelta func(providers.Delta)) (*providers.Response, error) {
	model, err := t.model(req)
	if err != nil {
		return nil, &providers.APIError{Provider: t.ep.Provider, Message: err.Error(), Err: err}
	}
	body, err := buildRequest(req, t.ep.Model)
	if err != nil {
		return nil, &providers.APIError{Provider: t.ep.Provider, Message: err.Error(), Err: err}
	}
	resp, e := providers.PostJSON(ctx, t.client, t.ep.Provider, t.streamURL(model), t.baseURL, "check the network and base_url", body,
		"Accept", "text/event-stream", "X-Goog-Api-Key", t.apiKey)
	if e != nil {
		return nil, e
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		e := t.httpError(resp)
		e.Err = providers.WithContext(ctx, e.Err)
		return nil, e
	}
	h := resp.Header.Clone()
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "application/json" {
		return t.readPlain(ctx, resp, h, onDelta)
	}
	return t.readSSE(ctx, resp.Body, h, onDelta)
}

// readSSE reads the event stream chunk by chunk.
func (t *geminiTransport) readSSE(ctx context.Context, body io.Reader, h http.Header, onDelta func(providers.Delta)) (*providers.Response, error) {
	a := newAssembler(onDelta)
	sr := newSSEReader(body)
	for {
		data, err := sr.next()
		if data = bytes.TrimSpace(data); len(data) > 0 {
			var chunk generateResponse
			if derr := json.Unmarshal(data, &chunk); derr != nil {
				if err == io.EOF {
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
		if err == io.EOF {
			break
		}
		if err != nil {
			return a.response(), t.cutError(ctx, h, err, "while reading")
		}
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

// sseReader splits a text/event-stream body into event data. Only data
// fields are kept (several data lines join with "\n"); comments, event,
// id and retry fields are ignored.
type sseReader struct {
	r       *bufio.Reader
	long    []byte // a line longer than the reader's buffer
	data    []byte
	hasData bool
}

func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// next returns the data of the next event. At the end of the body it
// returns io.EOF, along with the data of a last event that had no blank
// line after it (possibly cut short). The data is valid until the next
// call.
func (s *sseReader) next() ([]byte, error) {
	s.data, s.hasData = s.data[:0], false
	for {
		line, err := s.readLine()
		if len(line) == 0 && err == nil {
			if s.hasData {
				return s.data, nil
			}
			continue
		}
		if v, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			v, _ = bytes.CutPrefix(v, []byte(" "))
			if s.hasData {
				s.data = append(s.data, '\n')
			}
			s.data, s.hasData = append(s.data, v...), true
		}
		if err != nil {
			if s.hasData {
				return s.data, err
			}
			return nil, err
		}
	}
}

// readLine returns one line without its "\n" or "\r\n"; at the end of the
// body, the last (unterminated) line with io.EOF.
func (s *sseReader) readLine() ([]byte, error) {
	s.long = s.long[:0]
	for {
		line, err := s.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			s.long = append(s.long, line...)
			continue
		}
		if len(s.long) > 0 {
			line = append(s.long, line...)
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		return line, err
	}
}
