package responses

import (
	"testing"

	"talaria/providers"
	"talaria/providers/providertest"
)

// newTestTransport builds a transport pointed at srv.
func newTestTransport(t testing.TB, srv *providertest.WireServer) *transport {
	t.Helper()
	return providertest.Wire[*transport](t, New, providers.Endpoint{
		Provider:   "openai",
		Model:      "gpt-4.1",
		BaseURL:    srv.URL + "/v1",
		APIKey:     "sk-test",
		HTTPClient: srv.Client(),
	})
}
