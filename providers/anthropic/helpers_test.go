package anthropic

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
		Provider:   "anthropic",
		Model:      "claude-test",
		BaseURL:    srv.URL,
		APIKey:     "sk-ant-test",
		HTTPClient: srv.Client(),
	})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return tr.(*transport)
}

// messages returns body["messages"] as a list of objects.
func messages(t *testing.T, body map[string]any) []map[string]any {
	t.Helper()
	raw, _ := body["messages"].([]any)
	out := make([]map[string]any, len(raw))
	for i, m := range raw {
		out[i], _ = m.(map[string]any)
	}
	return out
}

// blocks returns the content blocks of a wire message.
func blocks(m map[string]any) []map[string]any {
	raw, _ := m["content"].([]any)
	out := make([]map[string]any, len(raw))
	for i, b := range raw {
		out[i], _ = b.(map[string]any)
	}
	return out
}

// countCacheControl counts cache_control markers anywhere in a JSON value.
func countCacheControl(v any) int {
	n := 0
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if k == "cache_control" {
				n++
				continue
			}
			n += countCacheControl(e)
		}
	case []any:
		for _, e := range x {
			n += countCacheControl(e)
		}
	}
	return n
}
