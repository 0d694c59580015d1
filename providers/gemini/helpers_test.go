package gemini

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

// newTestTransport builds a transport pointed at srv.
func newTestTransport(t testing.TB, srv *httptest.Server) *geminiTransport {
	t.Helper()
	tr, err := newTransport(providers.Endpoint{
		Provider:   "gemini",
		Model:      "gemini-2.0-flash",
		BaseURL:    srv.URL + "/v1beta",
		APIKey:     "AIzaSy-test-key",
		HTTPClient: srv.Client(),
	}, func(string) string { return "" })
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return tr
}
