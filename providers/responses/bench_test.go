package responses

import (
	"bytes"
	"fmt"
	"testing"

	"talaria/providers/providertest"
)

// largeStream builds an SSE body of about size bytes: one message item
// streamed as many response.output_text.delta events.
func largeStream(size int) []byte {
	var b bytes.Buffer
	b.WriteString("event: response.created\n" + `data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_bench","object":"response","status":"in_progress","model":"gpt-4.1-2025-04-14","output":[],"usage":null}}` + "\n\n")
	b.WriteString("event: response.output_item.added\n" + `data: {"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"msg_bench","type":"message","status":"in_progress","role":"assistant","content":[]}}` + "\n\n")
	seq := 2
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"sequence_number\":%d,\"item_id\":\"msg_bench\",\"output_index\":0,\"content_index\":0,\"delta\":%q,\"logprobs\":[]}\n\n", seq, fmt.Sprintf(" token%d", i))
		seq++
	}
	fmt.Fprintf(&b, "event: response.completed\ndata: {\"type\":\"response.completed\",\"sequence_number\":%d,\"response\":{\"id\":\"resp_bench\",\"object\":\"response\",\"status\":\"completed\",\"model\":\"gpt-4.1-2025-04-14\",\"output\":[],\"usage\":{\"input_tokens\":11,\"output_tokens\":6,\"total_tokens\":17}}}\n\n", seq)
	return b.Bytes()
}

// BenchmarkStreamParse streams about 1 MB of text deltas through Stream
// from a local test server; the MB/s figure is SSE bytes parsed per second.
func BenchmarkStreamParse(b *testing.B) {
	body := largeStream(1 << 20)
	tr := newTestTransport(b, providertest.StartWire(b, providertest.WireReply{Body: body}))
	providertest.BenchStream(b, tr, body)
}
