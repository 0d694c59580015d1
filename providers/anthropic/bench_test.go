package anthropic

import (
	"bytes"
	"fmt"
	"testing"

	"talaria/providers/providertest"
)

// largeStream builds an SSE body of about size bytes: a message with one
// text block streamed as many text_delta events.
func largeStream(size int) []byte {
	var b bytes.Buffer
	b.WriteString("event: message_start\n" + `data: {"type":"message_start","message":{"id":"msg_bench","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":11,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}` + "\n\n")
	b.WriteString("event: content_block_start\n" + `data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}` + "\n\n")
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":%q}}\n\n", fmt.Sprintf(" token%d", i))
	}
	b.WriteString("event: content_block_stop\n" + `data: {"type":"content_block_stop","index":0}` + "\n\n")
	b.WriteString("event: message_delta\n" + `data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":6}}` + "\n\n")
	b.WriteString("event: message_stop\n" + `data: {"type":"message_stop"}` + "\n\n")
	return b.Bytes()
}

// BenchmarkStreamParse streams about 1 MB of text deltas through Stream
// from a local test server; the MB/s figure is SSE bytes parsed per second.
func BenchmarkStreamParse(b *testing.B) {
	body := largeStream(1 << 20)
	tr := newTestTransport(b, providertest.StartWire(b, providertest.WireReply{Body: body}))
	providertest.BenchStream(b, tr, body)
}
