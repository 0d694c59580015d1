package anthropic

import (
	"context"
	"net/http"

	"talaria/providers"
)

// httpError converts a non-2xx answer into a *providers.APIError with the
// status, headers, raw body and, from the error body
// ({"type":"error","error":{"type","message"},"request_id"}, or the same
// without the top-level type from the edge), the message, the type and
// details.error_code as Code (enforced_spend_limit_reached, ...); a
// summary of the page when it is not one.
func (t *transport) httpError(ctx context.Context, res *http.Response) *providers.APIError {
	e, body := providers.ReadHTTPError(t.ep.Provider, res)
	e.Err = providers.WithContext(ctx, e.Err)
	fillError(e, body)
	if e.Message == "" {
		e.Message = providers.SummarizePage(res.StatusCode, body)
	}
	return e
}

// fillError parses an Anthropic error body into e; false when body is not
// one.
func fillError(e *providers.APIError, body []byte) bool {
	eb, ok := e.ParseBody(body)
	if ok {
		e.Message, e.Type, e.Code = eb.Message, eb.Type, eb.Code
	}
	return ok
}

// eventError converts an "error" event inside a started stream, such as
// {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}.
// Its Status is 0: the HTTP status was 200.
func (t *transport) eventError(h http.Header, raw []byte) *providers.APIError {
	e := &providers.APIError{Provider: t.ep.Provider, Headers: h, MidStream: true}
	fillError(e, raw)
	if e.Message == "" {
		e.Message = "the server sent an error inside the stream; retry the request"
	}
	return e
}
