package providertest

import (
	"context"
	"net/http/httptest"
	"testing"

	"talaria/providers"
)

// This file holds what every wire's tests build the same way: the server
// of a fixture, the transport under test, the objects of a request body,
// the stream benchmark.

// FixtureServer starts a WireServer answering every request with the
// testdata fixture (see ReadFixture) as its body.
func FixtureServer(t testing.TB, fixture string) *WireServer {
	t.Helper()
	return StartWire(t, WireReply{Body: ReadFixture(t, fixture)})
}

// Serve starts a WireServer answering every request with rep and returns
// its httptest server and its requests (buffered, so the handler never
// blocks on them).
func Serve(t testing.TB, rep WireReply) (*httptest.Server, <-chan Captured) {
	t.Helper()
	s := StartWire(t, rep)
	return s.Server, s.Requests()
}

// Wire builds the transport under test with factory for ep, as the wire's
// own type T; an error ends the test.
func Wire[T providers.Transport](t testing.TB, factory providers.Factory, ep providers.Endpoint) T {
	t.Helper()
	tr, err := factory(ep)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return tr.(T)
}

// NoEnv is an environment lookup that finds nothing, for the wires that
// read their defaults from the environment.
func NoEnv(string) string { return "" }

// Objects returns v, a JSON array decoded into any, as its objects; a
// value that is not an array gives none, an element that is not an object
// a nil map.
func Objects(v any) []map[string]any {
	raw, _ := v.([]any)
	out := make([]map[string]any, len(raw))
	for i, e := range raw {
		out[i], _ = e.(map[string]any)
	}
	return out
}

// BenchStream is a wire's stream benchmark: it streams SimpleRequest
// through tr, whose server answers with body, once per iteration,
// reporting body's size per op and the allocations, and fails unless each
// answer reports some text and finishes with "stop".
func BenchStream(b *testing.B, tr providers.Transport, body []byte) {
	b.Helper()
	req := SimpleRequest()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		resp, err := tr.Stream(context.Background(), req, func(d providers.Delta) { n += len(d.Text) })
		if err != nil || resp.FinishReason != "stop" || n == 0 {
			b.Fatalf("stream: %v %+v", err, resp)
		}
	}
}
