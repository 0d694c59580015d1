package gemini

import (
	"net/http/httptest"
	"testing"

	"talaria/providers"
	"talaria/providers/providertest"
)

// newTestTransport builds a transport pointed at srv.
func newTestTransport(t testing.TB, srv *httptest.Server) *geminiTransport {
	t.Helper()
	return providertest.Wire[*geminiTransport](t, func(ep providers.Endpoint) (providers.Transport, error) {
		return newTransport(ep, providertest.NoEnv)
	}, providers.Endpoint{
		Provider:   "gemini",
		Model:      "gemini-2.0-flash",
		BaseURL:    srv.URL + "/v1beta",
		APIKey:     "AIzaSy-test-key",
		HTTPClient: srv.Client(),
	})
}
