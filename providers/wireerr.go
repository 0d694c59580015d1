package providers

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"regexp"
	"strings"
)

// This file holds the error-building helpers that the wire transports
// (providers/anthropic, responses, openaichat, bedrock, gemini) share.

// MaxErrorBody bounds how much of a non-2xx response body a transport
// reads into memory.
const MaxErrorBody = 1 << 20

// Limits on what a wire reads into memory outside a stream's events.
const (
	// MaxPlainBody bounds a whole 2xx JSON answer (a server that ignored
	// "stream": true, or a non-streamed call).
	MaxPlainBody = 64 << 20
	// MaxQuotedBody bounds undecodable data quoted in an error.
	MaxQuotedBody = 4 << 10
)

// maxSummary bounds the message made from a non-JSON error body.
const maxSummary = 200

// WithContext makes a cancelled or expired ctx visible through errors.Is,
// whatever error the HTTP stack returned for it: err itself while ctx is
// live or when err already wraps ctx's error, ctx's error when err is nil,
// else both.
func WithContext(ctx context.Context, err error) error {
	cerr := ctx.Err()
	switch {
	case cerr == nil:
		return err
	case err == nil:
		return cerr
	case errors.Is(err, cerr):
		return err
	default:
		return fmt.Errorf("%w: %w", cerr, err)
	}
}

// ReadHTTPError reads the body of res, a non-2xx answer, up to
// MaxErrorBody bytes, into an APIError with Provider, Status, Headers (a
// copy of res.Header) and the raw Body set; Err is the read error, if any,
// for the caller to wrap. Message, Type and Code are the caller's to fill
// from the body, which is returned as well.
func ReadHTTPError(provider string, res *http.Response) (*APIError, []byte) {
	body, err := io.ReadAll(io.LimitReader(res.Body, MaxErrorBody))
	return &APIError{
		Provider: provider,
		Status:   res.StatusCode,
		Headers:  res.Header.Clone(),
		Body:     string(body),
		Err:      err,
	}, body
}

// SendError converts the failure of a request that got no response at all
// (connection refused, DNS, TLS, a cancelled ctx) into an APIError: Err is
// err made ctx-aware by WithContext; unless ctx ended, Message is "cannot
// reach URL: ERR; " followed by advice.
func SendError(ctx context.Context, provider, url string, err error, advice string) *APIError {
	e := &APIError{Provider: provider, Err: WithContext(ctx, err)}
	if ctx.Err() == nil {
		e.Message = fmt.Sprintf("cannot reach %s: %v; %s", url, err, advice)
	}
	return e
}

// MidStreamError is an error met after a stream started: MidStream, with
// Status 0 and the headers h of the answer.
func MidStreamError(provider string, h http.Header, msg string, err error) *APIError {
	return &APIError{Provider: provider, Headers: h, MidStream: true, Message: msg, Err: err}
}

// ReadFailed is the error of a stream whose reading failed (a reset
// connection, a cancelled ctx, an event over the size limit): a
// MidStreamError saying so, wrapping err made ctx-aware.
func ReadFailed(ctx context.Context, provider string, h http.Header, err error) *APIError {
	return MidStreamError(provider, h, "reading the stream failed: "+err.Error()+"; retry the request", WithContext(ctx, err))
}

// StreamCutError is the error of a stream that ended before its final
// event: a MidStreamError saying "the stream ended WHAT; the response is
// incomplete, retry the request", wrapping io.ErrUnexpectedEOF (and ctx's
// error when ctx ended).
func StreamCutError(ctx context.Context, provider string, h http.Header, what string) *APIError {
	return MidStreamError(provider, h, "the stream ended "+what+"; the response is incomplete, retry the request",
		WithContext(ctx, io.ErrUnexpectedEOF))
}

// EndOfStream is the verdict on an event stream read to its end or to an
// error: err when reading failed; nil when the stream was complete; else a
// StreamCutError saying it ended before any event (asking whether base_url
// is endpoint) or, when events came, before final.
func EndOfStream(ctx context.Context, provider string, h http.Header, err error, complete, sawEvent bool, endpoint, final string) error {
	switch {
	case err != nil:
		return err
	case complete:
		return nil
	case !sawEvent:
		return StreamCutError(ctx, provider, h, "before any event (is base_url "+endpoint+"?)")
	}
	return StreamCutError(ctx, provider, h, "before "+final)
}

// TruncateBody returns b as a string for quoting in an error: whole when
// it is at most n bytes, else its first n bytes, with invalid UTF-8 (such
// as a character cut in two) dropped, followed by "…".
func TruncateBody(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return strings.ToValidUTF8(string(b[:n]), "") + "…"
}

// SummarizeText makes a one-line message from a non-JSON error body: its
// words joined by single spaces and cut to 200 bytes; the status text when
// the body is blank.
func SummarizeText(status int, body []byte) string {
	s, _ := oneLine(status, string(body))
	return s
}

// Patterns used by SummarizePage.
var (
	titleRE = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title`)
	tagRE   = regexp.MustCompile(`(?s)<[^>]*>`)
)

// SummarizePage is SummarizeText for a body that may be an HTML page (a
// proxy's error page): the text of its <title> if any, else the body with
// its tags removed, entities decoded. When the body starts with '<' and
// something was left to say, a hint to check base_url and any proxy
// follows.
func SummarizePage(status int, body []byte) string {
	text := string(body)
	isHTML := strings.HasPrefix(strings.TrimSpace(text), "<")
	if m := titleRE.FindStringSubmatch(text); m != nil {
		text = m[1]
	} else {
		text = tagRE.ReplaceAllString(text, " ")
	}
	s, ok := oneLine(status, html.UnescapeString(text))
	if ok && isHTML {
		s += " (non-JSON error page; check base_url and any proxy in between)"
	}
	return s
}

// oneLine joins the words of text with single spaces and cuts the result
// to maxSummary bytes; blank text gives the status text. When even that is
// empty, it says so, and ok is false.
func oneLine(status int, text string) (s string, ok bool) {
	text = strings.Join(strings.Fields(text), " ")
	if len(text) > maxSummary {
		text = strings.ToValidUTF8(text[:maxSummary], "") + "…"
	}
	if text == "" {
		text = http.StatusText(status)
	}
	if text == "" {
		return fmt.Sprintf("HTTP %d with an empty body", status), false
	}
	return text, true
}

// FillError is the plain way of filling e from an error body: Message,
// Type and Code as ParseErrorBody reads them. It reports whether body was
// an error body. Wires whose format puts these elsewhere pass their own
// function of the same shape to HTTPError and EventError.
func FillError(e *APIError, body []byte) bool {
	eb, ok := e.ParseBody(body)
	if ok {
		e.Message, e.Type, e.Code = eb.Message, eb.Type, eb.Code
	}
	return ok
}

// HTTPError reads res, a non-2xx answer, into an APIError (ReadHTTPError,
// its Err made ctx-aware) filled from the body by fill, with a one-line
// summary of the page as the message when fill found none.
func HTTPError(ctx context.Context, provider string, res *http.Response, fill func(*APIError, []byte) bool) *APIError {
	e, body := ReadHTTPError(provider, res)
	e.Err = WithContext(ctx, e.Err)
	fill(e, body)
	if e.Message == "" {
		e.Message = SummarizePage(res.StatusCode, body)
	}
	return e
}

// EventError is an error reported inside a stream that started (an error
// event or chunk, raw): MidStream, Status 0, the answer's headers h, filled
// by fill, with fallback as the message when the event has none.
func EventError(provider string, h http.Header, raw []byte, fill func(*APIError, []byte) bool, fallback string) *APIError {
	e := &APIError{Provider: provider, Headers: h, MidStream: true}
	fill(e, raw)
	if e.Message == "" {
		e.Message = fallback
	}
	return e
}
