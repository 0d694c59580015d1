package responses

import (
	"bytes"
	"fmt"
	"strconv"
	"testing"

	"talaria/providers"
	"talaria/providers/providertest"
)

// manyCallsStream is a reply with n function calls streamed interleaved:
// every output_item.added first, then each call's arguments delta and
// done event (by item id and output index), then every output_item.done.
func manyCallsStream(n int) []byte {
	var b bytes.Buffer
	b.WriteString("event: response.created\n" + `data: {"type":"response.created","response":{"id":"resp_many","object":"response","status":"in_progress","model":"gpt-4.1","output":[]}}` + "\n\n")
	for i := range n {
		fmt.Fprintf(&b, "event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\",\"output_index\":%d,\"item\":{\"id\":\"fc_%d\",\"type\":\"function_call\",\"status\":\"in_progress\",\"arguments\":\"\",\"call_id\":\"call_%d\",\"name\":%q}}\n\n",
			i, i, i, providertest.ManyCallName(i))
	}
	for i := range n {
		args := strconv.Quote(providertest.ManyCallArgs(i))
		fmt.Fprintf(&b, "event: response.function_call_arguments.delta\ndata: {\"type\":\"response.function_call_arguments.delta\",\"item_id\":\"fc_%d\",\"output_index\":%d,\"delta\":%s}\n\n", i, i, args)
		fmt.Fprintf(&b, "event: response.function_call_arguments.done\ndata: {\"type\":\"response.function_call_arguments.done\",\"item_id\":\"fc_%d\",\"output_index\":%d,\"arguments\":%s}\n\n", i, i, args)
	}
	for i := range n {
		fmt.Fprintf(&b, "event: response.output_item.done\ndata: {\"type\":\"response.output_item.done\",\"output_index\":%d,\"item\":{\"id\":\"fc_%d\",\"type\":\"function_call\",\"status\":\"completed\",\"arguments\":%s,\"call_id\":\"call_%d\",\"name\":%q}}\n\n",
			i, i, strconv.Quote(providertest.ManyCallArgs(i)), i, providertest.ManyCallName(i))
	}
	b.WriteString("event: response.completed\n" + `data: {"type":"response.completed","response":{"id":"resp_many","object":"response","status":"completed","model":"gpt-4.1","output":[],"usage":{"input_tokens":1,"output_tokens":1,"total_tokens":2}}}` + "\n\n")
	return b.Bytes()
}

// BenchmarkManyToolCalls assembles one reply of 12.5k, 50k and 100k
// function calls through Stream from a local server; ns/op grows linearly
// with the number of calls (it grew quadratically while calls were found
// by scanning).
func BenchmarkManyToolCalls(b *testing.B) {
	providertest.BenchManyCalls(b, manyCallsStream, func(tb testing.TB, body []byte) providers.Transport {
		return newTestTransport(tb, providertest.StartWire(tb, providertest.WireReply{Body: body}))
	})
}
