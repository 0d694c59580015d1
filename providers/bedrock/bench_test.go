package bedrock

import (
	"bytes"
	"fmt"
	"testing"

	"talaria/providers/providertest"
)

// largeEventStream builds a converse-stream body of about size bytes of
// text deltas, ending with messageStop and metadata.
func largeEventStream(size int) []byte {
	var b bytes.Buffer
	b.Write(event("messageStart", `{"role":"assistant"}`))
	for i := 0; b.Len() < size; i++ {
		b.Write(event("contentBlockDelta", fmt.Sprintf(`{"contentBlockIndex":0,"delta":{"text":" token%d"}}`, i)))
	}
	b.Write(event("contentBlockStop", `{"contentBlockIndex":0}`))
	b.Write(event("messageStop", `{"stopReason":"end_turn"}`))
	b.Write(event("metadata", `{"usage":{"inputTokens":1,"outputTokens":2,"totalTokens":3},"metrics":{"latencyMs":1}}`))
	return b.Bytes()
}

// largeConverse builds a converse answer of about size bytes of text.
func largeConverse(size int) []byte {
	var text bytes.Buffer
	for i := 0; text.Len() < size; i++ {
		fmt.Fprintf(&text, " token%d", i)
	}
	return []byte(fmt.Sprintf(`{"output":{"message":{"role":"assistant","content":[{"text":%q}]}},"stopReason":"end_turn","usage":{"inputTokens":1,"outputTokens":2,"totalTokens":3},"metrics":{"latencyMs":1}}`, text.String()))
}

// BenchmarkStreamParse sends about 1 MB through Stream from a local test
// server: converse-stream event frames, and one whole converse answer. The
// MB/s figure is body bytes parsed per second.
func BenchmarkStreamParse(b *testing.B) {
	for _, bc := range []struct {
		name   string
		stream bool
		body   []byte
	}{
		{"converse-stream", true, largeEventStream(1 << 20)},
		{"converse", false, largeConverse(1 << 20)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			srv, _ := startServer(b, providertest.WireReply{Body: bc.body})
			tr := newTestTransport(b, srv, bc.stream)
			providertest.BenchStream(b, tr, bc.body)
		})
	}
}
