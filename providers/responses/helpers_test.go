package responses

import (
	"testing"

	"talaria/providers"
	"talaria/providers/providertest"
)

// sseServer serves a testdata fixture as an event stream.
func sseServer(t testing.TB, fixture string) *providertest.WireServer {
	t.Helper()
	return providertest.StartWire(t, providertest.WireReply{Body: providertest.ReadFixture(t, fixture)})
}

// newTestTransport builds a transport pointed at srv.
func newTestTransport(t testing.TB, srv *providertest.WireServer) *transport {
	t.Helper()
	tr, err := New(providers.Endpoint{
		Provider:   "openai",
		Model:      "gpt-4.1",
		BaseURL:    srv.URL + "/v1",
		APIKey:     "sk-test",
		HTTPClient: srv.Client(),
	})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return tr.(*transport)
}

// inputItems returns body["input"] as a list of objects.
func inputItems(t *testing.T, body map[string]any) []map[string]any {
	t.Helper()
	raw, _ := body["input"].([]any)
	out := make([]map[string]any, len(raw))
	for i, m := range raw {
		out[i], _ = m.(map[string]any)
	}
	return out
}
