package gemini

import (
	"bytes"
	"fmt"
	"testing"

	"talaria/providers/providertest"
)

// largeStream builds an SSE body of about size bytes of Gemini text chunks.
func largeStream(size int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \" token%d\"}],\"role\": \"model\"},\"index\": 0}],\"usageMetadata\": {\"promptTokenCount\": 9,\"candidatesTokenCount\": %d,\"totalTokenCount\": %d},\"modelVersion\": \"gemini-2.5-flash\",\"responseId\": \"xY3haL6hBqGV1dkPw7_-uAg\"}\r\n\r\n", i, i, i+9)
	}
	b.WriteString("data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"\"}],\"role\": \"model\"},\"finishReason\": \"STOP\",\"index\": 0}],\"usageMetadata\": {\"promptTokenCount\": 9,\"candidatesTokenCount\": 1,\"totalTokenCount\": 10},\"modelVersion\": \"gemini-2.5-flash\"}\r\n\r\n")
	return b.Bytes()
}

// BenchmarkStreamParse streams about 1 MB of text chunks through Stream
// from a local test server; the MB/s figure is SSE bytes parsed per second.
func BenchmarkStreamParse(b *testing.B) {
	body := largeStream(1 << 20)
	srv, _ := providertest.Serve(b, providertest.WireReply{Body: body})
	tr := newTestTransport(b, srv)
	providertest.BenchStream(b, tr, body)
}
