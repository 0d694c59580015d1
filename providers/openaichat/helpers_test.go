package openaichat

import (
	"net/http/httptest"
	"testing"

	"talaria/providers"
	"talaria/providers/providertest"
)

// sseServer serves a testdata fixture as an SSE stream.
func sseServer(t testing.TB, fixture string) (*httptest.Server, <-chan providertest.Captured) {
	t.Helper()
	return providertest.Serve(t, providertest.WireReply{Body: providertest.ReadFixture(t, fixture)})
}

// newTestTransport builds a transport pointed at srv.
func newTestTransport(t testing.TB, srv *httptest.Server, provider string) *chatTransport {
	t.Helper()
	return providertest.Wire[*chatTransport](t, New, providers.Endpoint{
		Provider:   provider,
		Model:      "test-model",
		BaseURL:    srv.URL + "/v1",
		APIKey:     "sk-test",
		HTTPClient: srv.Client(),
	})
}
