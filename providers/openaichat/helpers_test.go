package openaichat

import (
	"net/http/httptest"
	"testing"

	"talaria/providers"
	"talaria/providers/providertest"
)

// startServer serves each request with rep and hands the request to the
// returned channel (buffered, so the handler never blocks on it).
func startServer(t testing.TB, rep providertest.WireReply) (*httptest.Server, <-chan providertest.Captured) {
	t.Helper()
	s := providertest.StartWire(t, rep)
	return s.Server, s.Requests()
}

// sseServer serves a testdata fixture as an SSE stream.
func sseServer(t testing.TB, fixture string) (*httptest.Server, <-chan providertest.Captured) {
	t.Helper()
	return startServer(t, providertest.WireReply{Body: providertest.ReadFixture(t, fixture)})
}

// newTestTransport builds a transport pointed at srv.
func newTestTransport(t testing.TB, srv *httptest.Server, provider string) *chatTransport {
	t.Helper()
	tr, err := New(providers.Endpoint{
		Provider:   provider,
		Model:      "test-model",
		BaseURL:    srv.URL + "/v1",
		APIKey:     "sk-test",
		HTTPClient: srv.Client(),
	})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return tr.(*chatTransport)
}

// asAPIError asserts err is a *providers.APIError.
func asAPIError(t *testing.T, err error) *providers.APIError {
	t.Helper()
	ae, ok := err.(*providers.APIError)
	if !ok {
		t.Fatalf("error %T (%v), want *providers.APIError", err, err)
	}
	return ae
}
