package gemini

import (
	"context"
	"testing"

	"talaria/providers/providertest"
)

// TestManyToolCalls assembles an answer of many whole function calls, one
// per chunk: every call in order with its arguments. The speed of this
// path is BenchmarkManyToolCalls's.
func TestManyToolCalls(t *testing.T) {
	const n = 500
	srv, _ := providertest.Serve(t, providertest.WireReply{Body: manyCallsStream(n)})
	resp, err := newTestTransport(t, srv).Stream(context.Background(), providertest.SimpleRequest(), nil)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	providertest.CheckManyCalls(t, resp, n)
}
