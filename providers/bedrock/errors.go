package bedrock

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"talaria/providers"
)

// Limits on what is read into memory.
const (
	maxErrorBody   = 1 << 20  // non-2xx bodies
	maxConverse    = 64 << 20 // a whole converse answer
	maxSummary     = 200      // message made from a non-JSON body
	maxBodyInError = 4 << 10  // undecodable data quoted in an error
)

// CodeContextOverflow is the APIError.Code set when a Bedrock error says
// the prompt is longer than the model's context (a ValidationException
// "Input is too long for requested model", "too many input tokens", ...):
// Bedrock has no error code of its own for it, and this one is what
// providers.Classify recognizes.
const CodeContextOverflow = "context_length_exceeded"

// httpError converts a non-2xx answer into an APIError: the message from
// the JSON body ("message" or "Message"), the exception name from the
// x-amzn-ErrorType header or the body's "__type".
func (t *converseTransport) httpError(resp *http.Response) *providers.APIError {
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	e := &providers.APIError{
		Provider: t.ep.Provider,
		Status:   resp.StatusCode,
		Headers:  resp.Header.Clone(),
		Body:     string(body),
		Err:      err,
	}
	var eb errorBody
	if json.Unmarshal(body, &eb) == nil {
		e.Message = firstNonEmpty(eb.Message, eb.MessageU)
		e.Type = exceptionName(eb.Type)
	}
	if h := exceptionName(resp.Header.Get("x-amzn-ErrorType")); h != "" {
		e.Type = h
	}
	if e.Message == "" {
		e.Message = summarizeBody(resp.StatusCode, body)
	}
	e.Code = overflowCode(e.Type, e.Message)
	return e
}

// exceptionName reduces an AWS error type to the exception name:
// "ValidationException:http://internal.amazon.com/coral/..." and
// "com.amazon.coral.validate#ValidationException" both give
// "ValidationException"; an event-stream "throttlingException" gives
// "ThrottlingException".
func exceptionName(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, ':'); i >= 0 {
		s = s[:i]
	}
	if i := strings.LastIndexByte(s, '#'); i >= 0 {
		s = s[i+1:]
	}
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return ""
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// overflowCode returns CodeContextOverflow when msg is one of Bedrock's
// context-overflow messages, else "". Throttling is never an overflow:
// its message "Too many tokens, please wait before trying again." is about
// the tokens-per-minute quota.
func overflowCode(typ, msg string) string {
	if typ == "ThrottlingException" || typ == "ServiceQuotaExceededException" {
		return ""
	}
	m := strings.ToLower(msg)
	for _, p := range []string{"input is too long", "too many input tokens", "too many tokens", "max input token", "prompt is too long"} {
		if strings.Contains(m, p) {
			return CodeContextOverflow
		}
	}
	if strings.Contains(m, "input token") && strings.Contains(m, "exceed") ||
		strings.Contains(m, "exceeds the maximum number of") && strings.Contains(m, "token") {
		return CodeContextOverflow
	}
	return ""
}

// requestError is a failure before any response: the request could not be
// built or sent (connection refused, DNS, a cancelled context).
func (t *converseTransport) requestError(ctx context.Context, err error) *providers.APIError {
	e := &providers.APIError{Provider: t.ep.Provider, Err: withContext(ctx, err)}
	if ctx.Err() == nil {
		e.Message = fmt.Sprintf("cannot reach %s: %v; check the network and base_url", t.baseURL, err)
	}
	return e
}

// readError is a failure while reading a 2xx body that already started;
// like every error after the body started, it has Status 0 and MidStream.
func (t *converseTransport) readError(ctx context.Context, h http.Header, err error, what string) *providers.APIError {
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	e := &providers.APIError{
		Provider: t.ep.Provider, Headers: h, MidStream: true,
		Err: withContext(ctx, err),
	}
	if ctx.Err() == nil {
		e.Message = "the response was cut " + what + " (" + err.Error() + "); it is incomplete, retry the request"
	}
	return e
}

// withContext makes a cancelled or expired ctx visible through errors.Is,
// whatever error the HTTP stack returned for it.
func withContext(ctx context.Context, err error) error {
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

// summarizeBody makes a one-line message from a non-JSON error body.
func summarizeBody(status int, body []byte) string {
	text := strings.Join(strings.Fields(string(body)), " ")
	if len(text) > maxSummary {
		text = strings.ToValidUTF8(text[:maxSummary], "") + "…"
	}
	if text == "" {
		text = http.StatusText(status)
	}
	if text == "" {
		text = fmt.Sprintf("HTTP %d with an empty body", status)
	}
	return text
}

func truncate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return strings.ToValidUTF8(string(b[:n]), "") + "…"
}
