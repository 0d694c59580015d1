package responses

import (
	"net/http"

	"talaria/providers"
)

// eventError converts an "error" event: the SDK's flat shape
// {"type":"error","code","message","param"} or the nested one seen on
// context overflow, {"type":"error","error":{"type","code","message"}}.
// Its Status is 0: the HTTP status was 200.
func (t *transport) eventError(h http.Header, raw []byte) *providers.APIError {
	return providers.EventError(t.ep.Provider, h, raw, providers.FillError, "the server sent an error inside the stream; retry the request")
}

// failedError converts response.failed, whose response carries the error
// object ({"code":"server_error","message":…}).
func (t *transport) failedError(h http.Header, raw []byte) *providers.APIError {
	return providers.EventError(t.ep.Provider, h, raw, providers.FillError, "the response failed without an error message; retry the request")
}
