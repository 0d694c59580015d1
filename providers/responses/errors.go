package responses

import (
	"context"
	"net/http"

	"talaria/providers"
)

// httpError reads a non-2xx response into a *providers.APIError.
func (t *transport) httpError(ctx context.Context, res *http.Response) *providers.APIError {
	e, body := providers.ReadHTTPError(t.ep.Provider, res)
	if e.Err != nil {
		e.Err = providers.WithContext(ctx, e.Err)
	}
	fillError(e, body)
	if e.Message == "" {
		e.Message = providers.SummarizePage(res.StatusCode, body)
	}
	return e
}

// fillError reads an error body into e: {"error":{"type","code","message",
// "param"}} (OpenAI and compatible servers), {"error":"msg"}, a JSON array
// of those, the flat "error" event {"type":"error","code","message"} and
// response.failed's {"response":{"error":{…}}}. It reports whether body was
// one of these.
func fillError(e *providers.APIError, body []byte) bool {
	eb, ok := e.ParseBody(body)
	if ok {
		e.Message, e.Type, e.Code = eb.Message, eb.Type, eb.Code
	}
	return ok
}

// eventError converts an "error" event: the SDK's flat shape
// {"type":"error","code","message","param"} or the nested one seen on
// context overflow, {"type":"error","error":{"type","code","message"}}.
// Its Status is 0: the HTTP status was 200.
func (t *transport) eventError(h http.Header, raw []byte) *providers.APIError {
	e := &providers.APIError{Provider: t.ep.Provider, Headers: h, MidStream: true}
	fillError(e, raw)
	if e.Message == "" {
		e.Message = "the server sent an error inside the stream; retry the request"
	}
	return e
}

// failedError converts response.failed, whose response carries the error
// object ({"code":"server_error","message":…}).
func (t *transport) failedError(h http.Header, raw []byte) *providers.APIError {
	e := &providers.APIError{Provider: t.ep.Provider, Headers: h, MidStream: true}
	fillError(e, raw)
	if e.Message == "" {
		e.Message = "the response failed without an error message; retry the request"
	}
	return e
}
