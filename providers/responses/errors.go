package responses

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"regexp"
	"strings"

	"talaria/providers"
)

// maxSummary bounds the message made from a non-JSON error body.
const maxSummary = 200

// httpError reads a non-2xx response into a *providers.APIError.
func (t *transport) httpError(ctx context.Context, res *http.Response) *providers.APIError {
	body, err := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
	e := &providers.APIError{Provider: t.ep.Provider, Status: res.StatusCode, Headers: res.Header, Body: string(body)}
	if err != nil {
		e.Err = withContext(ctx, err)
	}
	if f, ok := parseErrorBody(body); ok {
		e.Message, e.Type, e.Code = f.Message, f.Type, f.Code
	}
	if e.Message == "" {
		e.Message = summarizeBody(res.StatusCode, body)
	}
	return e
}

// eventError converts an "error" event: the SDK's flat shape
// {"type":"error","code","message","param"} or the nested one seen on
// context overflow, {"type":"error","error":{"type","code","message"}}.
// Its Status is 0: the HTTP status was 200.
func (t *transport) eventError(h http.Header, raw []byte, ev *event) *providers.APIError {
	e := &providers.APIError{Provider: t.ep.Provider, Headers: h, MidStream: true, Body: string(raw)}
	switch {
	case ev.Error != nil:
		f := ev.Error.fields()
		e.Message, e.Type, e.Code = f.Message, f.Type, f.Code
	default:
		e.Message, e.Code = ev.Message, codeString(ev.Code)
	}
	if e.Message == "" {
		e.Message = "the server sent an error inside the stream; retry the request"
	}
	return e
}

// failedError converts response.failed, whose response carries the error
// object ({"code":"server_error","message":…}).
func (t *transport) failedError(h http.Header, raw []byte, r *wireResponse) *providers.APIError {
	e := &providers.APIError{Provider: t.ep.Provider, Headers: h, MidStream: true, Body: string(raw)}
	if r != nil && r.Error != nil {
		f := r.Error.fields()
		e.Message, e.Type, e.Code = f.Message, f.Type, f.Code
	}
	if e.Message == "" {
		e.Message = "the response failed without an error message; retry the request"
	}
	return e
}

// midStream is an error met after the stream started.
func (t *transport) midStream(h http.Header, msg string, err error) *providers.APIError {
	return &providers.APIError{Provider: t.ep.Provider, Headers: h, MidStream: true, Message: msg, Err: err}
}

// cutError is the error of a stream that ended before its final event.
func (t *transport) cutError(ctx context.Context, h http.Header, what string) *providers.APIError {
	return t.midStream(h, "the stream ended "+what+"; the response is incomplete, retry the request",
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
