package anthropic

import (
	"bytes"
	"fmt"
	"strconv"
	"testing"

	"talaria/providers"
	"talaria/providers/providertest"
)

// manyCallsStream is a message with n tool_use blocks streamed
// interleaved: every content_block_start first, then every block's
// input_json_delta by index, then every content_block_stop.
func manyCallsStream(n int) []byte {
	var b bytes.Buffer
	b.WriteString("event: message_start\n" + `data: {"type":"message_start","message":{"id":"msg_many","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"usage":{"input_tokens":1,"output_tokens":1}}}` + "\n\n")
	for i := range n {
		fmt.Fprintf(&b, "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":%d,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_%d\",\"name\":%q,\"input\":{}}}\n\n", i, i, providertest.ManyCallName(i))
	}
	for i := range n {
		fmt.Fprintf(&b, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":%d,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":%s}}\n\n", i, strconv.Quote(providertest.ManyCallArgs(i)))
	}
	for i := range n {
		fmt.Fprintf(&b, "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":%d}\n\n", i)
	}
	b.WriteString("event: message_delta\n" + `data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":9}}` + "\n\n")
	b.WriteString("event: message_stop\n" + `data: {"type":"message_stop"}` + "\n\n")
	return b.Bytes()
}

// BenchmarkManyToolCalls assembles one message of 12.5k, 50k and 100k
// tool_use blocks through Stream from a local server; ns/op grows
// linearly with the number of calls (it grew quadratically while blocks
// were found by scanning).
func BenchmarkManyToolCalls(b *testing.B) {
	providertest.BenchManyCalls(b, manyCallsStream, func(tb testing.TB, body []byte) providers.Transport {
		return newTestTransport(tb, providertest.StartWire(tb, providertest.WireReply{Body: body}))
	})
}
