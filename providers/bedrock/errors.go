package bedrock

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"talaria/providers"
)

// fillHTTPError fills e, a non-2xx answer, from its body: the message
// from the JSON body ("message" or "Message", else a one-line summary of
// the body), the exception name from the x-amzn-ErrorType header or the
// body's "__type", and providers.CodeContextOverflow for an overflow message.
func fillHTTPError(e *providers.APIError, body []byte) bool {
	eb, ok := e.ParseBody(body)
	if ok {
		e.Message = eb.Message
		e.Type = exceptionName(eb.Type)
	}
	if h := exceptionName(e.Headers.Get("x-amzn-ErrorType")); h != "" {
		e.Type = h
	}
	if e.Message == "" {
		e.Message = providers.SummarizeText(e.Status, body)
	}
	e.Code = overflowCode(e.Type, e.Message)
	return ok
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

// overflowCode returns providers.CodeContextOverflow when msg is one of Bedrock's
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
			return providers.CodeContextOverflow
		}
	}
	if strings.Contains(m, "input token") && strings.Contains(m, "exceed") ||
		strings.Contains(m, "exceeds the maximum number of") && strings.Contains(m, "token") {
		return providers.CodeContextOverflow
	}
	return ""
}

// readError is a failure while reading a 2xx body that already started;
// like every error after the body started, it has Status 0 and MidStream.
func (t *converseTransport) readError(ctx context.Context, h http.Header, err error, what string) *providers.APIError {
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	e := &providers.APIError{
		Provider: t.ep.Provider, Headers: h, MidStream: true,
		Err: providers.WithContext(ctx, err),
	}
	if ctx.Err() == nil {
		e.Message = "the response was cut " + what + " (" + err.Error() + "); it is incomplete, retry the request"
	}
	return e
}
