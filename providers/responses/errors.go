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
	if f, ok := parseErrorBody(body); ok {
		e.Message, e.Type, e.Code = f.Message, f.Type, f.Code
	}
	if e.Message == "" {
		e.Message = providers.SummarizePage(res.StatusCode, body)
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
