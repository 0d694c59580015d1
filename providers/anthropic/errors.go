package anthropic

import (
	"net/http"

	"talaria/providers"
)

// eventError converts an "error" event inside a started stream, such as
// {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}.
// Its Status is 0: the HTTP status was 200.
func (t *transport) eventError(h http.Header, raw []byte) *providers.APIError {
	return providers.EventError(t.ep.Provider, h, raw, providers.FillError, "the server sent an error inside the stream; retry the request")
}
