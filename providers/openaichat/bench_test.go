package openaichat

import (
	"bytes"
	"fmt"
	"testing"

	"talaria/providers/providertest"
)

// largeStream builds an SSE body of about size bytes of OpenAI text chunks.
func largeStream(size int) []byte {
	var b bytes.Buffer
	head := `data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1727346168,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_5050236cbd","choices":[{"index":0,"delta":{"content":`
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "%s%q},\"logprobs\":null,\"finish_reason\":null}]}\n\n", head, fmt.Sprintf(" token%d", i))
	}
	b.WriteString(`data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1727346168,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}` + "\n\n")
	b.WriteString(`data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1727346168,"model":"gpt-4o-2024-08-06","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}` + "\n\n")
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

// BenchmarkStreamParse streams about 1 MB of text chunks through Stream
// from a local test server; the MB/s figure is SSE bytes parsed per second.
func BenchmarkStreamParse(b *testing.B) {
	body := largeStream(1 << 20)
	srv, _ := providertest.Serve(b, providertest.WireReply{Body: body})
	tr := newTestTransport(b, srv, "bench")
	providertest.BenchStream(b, tr, body)
}
