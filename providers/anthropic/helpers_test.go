package anthropic

import (
	"testing"

	"talaria/providers"
	"talaria/providers/providertest"
)

// newTestTransport builds a transport pointed at srv.
func newTestTransport(t testing.TB, srv *providertest.WireServer) *transport {
	t.Helper()
	return providertest.Wire[*transport](t, New, providers.Endpoint{
		Provider:   "anthropic",
		Model:      "claude-test",
		BaseURL:    srv.URL,
		APIKey:     "sk-ant-test",
		HTTPClient: srv.Client(),
	})
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
