package gemini

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"talaria/providers"
)

// fillHTTPError fills e, a non-2xx answer, from its body: Status is the HTTP
// status, Code the error's status string (RESOURCE_EXHAUSTED, ...), Message
// its message, Type the reason of an ErrorInfo detail (API_KEY_INVALID,
// ...). Both the object body {"error":{...}} and the array body
// [{"error":{...}}] are read. A RetryInfo detail's retryDelay ("30s")
// becomes a synthetic "Retry-After: 30" header (whole seconds, rounded up)
// when the answer has no Retry-After header of its own, so retry logic that
// reads headers honours it. A body that is not a Gemini error gives a
// one-line summary of it as the message.
func fillHTTPError(e *providers.APIError, body []byte) bool {
	if fillError(e, body) {
		return true
	}
	e.Message = providers.SummarizeText(e.Status, body)
	return false
}

// fillError parses a Gemini error body ({"error":{"code","message",
// "status","details"}}, or a list of those) into e (see fillHTTPError); false
// when body is not one.
func fillError(e *providers.APIError, body []byte) bool {
	obj, ok := e.ParseBody(body)
	if !ok {
		return false
	}
	e.Message = obj.Message
	e.Code = firstNonEmpty(obj.Status, obj.Code)
	var delay time.Duration
	for _, raw := range obj.Details {
		var d errorDetail
		if json.Unmarshal(raw, &d) != nil {
			continue
		}
		switch {
		case strings.HasSuffix(d.Type, "google.rpc.RetryInfo"):
			if v, err := time.ParseDuration(strings.TrimSpace(d.RetryDelay)); err == nil && v > 0 {
				delay = v
			}
		case strings.HasSuffix(d.Type, "google.rpc.ErrorInfo") && d.Reason != "":
			e.Type = d.Reason
		}
	}
	if delay > 0 && (e.Headers == nil || e.Headers.Get("Retry-After") == "") {
		if e.Headers == nil {
			e.Headers = http.Header{}
		}
		e.Headers.Set("Retry-After", strconv.Itoa(int(math.Ceil(delay.Seconds()))))
	}
	if e.Type == "" && isOverflow(e.Message) {
		e.Type = providers.CodeContextOverflow
	}
	if e.Message == "" {
		e.Message = firstNonEmpty(obj.Status, "the server reported an error without a message")
	}
	return true
}

// isOverflow recognizes Gemini's context-overflow messages.
func isOverflow(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "exceeds the maximum number of tokens") ||
		(strings.Contains(m, "token count") && strings.Contains(m, "exceeds"))
}

// cutError is a stream that broke or ended early: MidStream, Status 0.
func (t *geminiTransport) cutError(ctx context.Context, h http.Header, err error, what string) *providers.APIError {
	if err == nil || errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	e := &providers.APIError{Provider: t.ep.Provider, Headers: h, MidStream: true, Err: providers.WithContext(ctx, err)}
	if ctx.Err() == nil {
		e.Message = "the stream ended " + what + " (" + err.Error() + "); the response is incomplete, retry the request"
	}
	return e
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
