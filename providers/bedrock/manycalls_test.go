package bedrock

import (
	"context"
	"testing"

	"talaria/providers/providertest"
)

// TestManyToolCallsInterleaved assembles a converse stream whose toolUse
// blocks all start before any input arrives: each call gets its own
// arguments, in order. The speed of this path is BenchmarkManyToolCalls's.
func TestManyToolCallsInterleaved(t *testing.T) {
	const n = 500
	srv, _ := startServer(t, providertest.WireReply{Body: manyCallsStream(n)})
	resp, err := newTestTransport(t, srv, true).Stream(context.Background(), providertest.SimpleRequest(), nil)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	providertest.CheckManyCalls(t, resp, n)
}
