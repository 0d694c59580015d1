package anthropic

import (
	"context"
	"net/http"

	"talaria/providers"
)

// httpError converts a non-2xx answer into a *providers.APIError with the
// status, headers, raw body and the message, type and details.error_code
// of an Anthropic error body (a summary of the page when it is not one).
func (t *transport) httpError(ctx context.Context, res *http.Response) *providers.APIError {
	e, body := providers.ReadHTTPError(t.ep.Provider, res)
	e.Err = providers.WithContext(ctx, e.Err)
	if we, ok := parseErrorBody(body); ok {
		e.Message, e.Type, e.Code = we.Message, we.Type, we.code()
	} else {
		e.Message = providers.SummarizePage(res.StatusCode, body)
	}
	return e
}

// eventError converts an "error" event inside a started stream, such as
// {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}.
// Its Status is 0: the HTTP status was 200.
func (t *transport) eventError(h http.Header, raw []byte, we *wireError) *providers.APIError {
	e := &providers.APIError{Provider: t.ep.Provider, Headers: h, MidStream: true, Body: string(raw)}
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
