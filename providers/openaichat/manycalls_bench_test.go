package openaichat

import (
	"bytes"
	"fmt"
	"strconv"
	"testing"

	"talaria/providers"
	"talaria/providers/providertest"
)

// manyCallsStream is a reply with n tool calls streamed interleaved, as a
// server running them in parallel may: first every call's id and name
// (each a new id, looked up by id and by index), then every call's
// arguments by index alone, then the finish chunk.
func manyCallsStream(n int) []byte {
	var b bytes.Buffer
	const head = `data: {"id":"chatcmpl-many","object":"chat.completion.chunk","model":"gpt-4o","choices":[{"index":0,"delta":{"tool_calls":[`
	for i := range n {
		fmt.Fprintf(&b, "%s{\"index\":%d,\"id\":\"call_%d\",\"type\":\"function\",\"function\":{\"name\":%q,\"arguments\":\"\"}}]},\"finish_reason\":null}]}\n\n",
			head, i, i, providertest.ManyCallName(i))
	}
	for i := range n {
		fmt.Fprintf(&b, "%s{\"index\":%d,\"function\":{\"arguments\":%s}}]},\"finish_reason\":null}]}\n\n",
			head, i, strconv.Quote(providertest.ManyCallArgs(i)))
	}
	b.WriteString(`data: {"id":"chatcmpl-many","object":"chat.completion.chunk","model":"gpt-4o","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\n")
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

// BenchmarkManyToolCalls assembles one reply of 12.5k, 50k and 100k tool
// calls through Stream from a local server; ns/op grows linearly with the
// number of calls (it grew quadratically while calls were found by
// scanning).
func BenchmarkManyToolCalls(b *testing.B) {
	providertest.BenchManyCalls(b, manyCallsStream, func(tb testing.TB, body []byte) providers.Transport {
		return newTestTransport(tb, providertest.StartWire(tb, providertest.WireReply{Body: body}).Server, "bench")
	})
}
