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
	return providers.HTTPError(ctx, t.ep.Provider, res, providers.FillError)
}

// eventError converts an "error" event inside a started stream, such as
// {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}.
// Its Status is 0: the HTTP status was 200.
func (t *transport) eventError(h http.Header, raw []byte) *providers.APIError {
	return providers.EventError(t.ep.Provider, h, raw, providers.FillError, "the server sent an error inside the stream; retry the request")
}
