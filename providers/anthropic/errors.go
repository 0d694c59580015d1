package anthropic

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"regexp"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"talaria/providers"
)

// maxSummary bounds the message made from a non-JSON error body.
const maxSummary = 200

// requestError converts an error from sending the request (an HTTP error
// status, a network failure) into a *providers.APIError, using what the
// capture middleware saw of the response.
func (t *transport) requestError(ctx context.Context, st *callState, err error) *providers.APIError {
	e := &providers.APIError{Provider: t.ep.Provider, Err: withContext(ctx, err)}
	if st.status == 0 {
		var se *sdk.Error
		if errors.As(err, &se) && se.StatusCode != 0 {
			e.Status = se.StatusCode
			e.Message = se.Error()
			return e
		}
		if ctx.Err() == nil {
			e.Message = fmt.Sprintf("cannot reach %s: %v; check that the server is running and base_url is right", t.baseURL, err)
		}
		return e
	}
	e.Status, e.Headers, e.Body = st.status, st.headers, string(st.errBody)
	if we, ok := parseErrorBody(st.errBody); ok {
		e.Message, e.Type, e.Code = we.Message, we.Type, we.code()
	} else {
		e.Message = summarizeBody(st.status, st.errBody)
	}
	return e
}

// eventError converts an "error" event inside a started stream, such as
// {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}.
// Its Status is 0: the HTTP status was 200.
func (t *transport) eventError(st *callState, raw []byte, we *wireError) *providers.APIError {
	e := &providers.APIError{Provider: t.ep.Provider, Headers: st.headers, MidStream: true, Body: string(raw)}
	if we == nil {
		if p, ok := parseErrorBody(raw); ok {
			we = &p
		}
	}
	if we != nil {
		e.Message, e.Type, e.Code = we.Message, we.Type, we.code()
	}
	if e.Message == "" {
		e.Message = "the server sent an error inside the stream; retry the request"
	}
	return e
}

// midStream is an error met after the stream started.
func (t *transport) midStream(st *callState, msg string, err error) *providers.APIError {
	return &providers.APIError{Provider: t.ep.Provider, Headers: st.headers, MidStream: true, Message: msg, Err: err}
}

// cutError is the error of a stream that ended before its stop_reason.
func (t *transport) cutError(ctx context.Context, st *callState, what string) *providers.APIError {
	return t.midStream(st, "the stream ended "+what+"; the response is incomplete, retry the request",
		withContext(ctx, io.ErrUnexpectedEOF))
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

// Patterns used by summarizeBody.
var (
	titleRE = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title`)
	tagRE   = regexp.MustCompile(`(?s)<[^>]*>`)
)

// summarizeBody makes a one-line message from a non-JSON error body (a
// proxy's HTML page, plain text): the HTML title if any, else the text
// without tags, cut to maxSummary bytes; the status text when empty.
func summarizeBody(status int, body []byte) string {
	text := string(body)
	isHTML := strings.HasPrefix(strings.TrimSpace(text), "<")
	if m := titleRE.FindStringSubmatch(text); m != nil {
		text = m[1]
	} else {
		text = tagRE.ReplaceAllString(text, " ")
	}
	text = strings.Join(strings.Fields(html.UnescapeString(text)), " ")
	if len(text) > maxSummary {
		text = strings.ToValidUTF8(text[:maxSummary], "") + "…"
	}
	if text == "" {
		text = http.StatusText(status)
	}
	if text == "" {
		return fmt.Sprintf("HTTP %d with an empty body", status)
	}
	if isHTML {
		text += " (non-JSON error page; check base_url and any proxy in between)"
	}
	return text
}

func truncate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return strings.ToValidUTF8(string(b[:n]), "") + "…"
}
