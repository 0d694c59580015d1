package bedrock

import (
	"bytes"
	"fmt"
	"strconv"
	"testing"

	"talaria/providers"
	"talaria/providers/providertest"
)

// manyCallsStream is a converse-stream answer with n toolUse blocks
// streamed interleaved: every contentBlockStart first, then every block's
// input delta by contentBlockIndex, then every contentBlockStop.
func manyCallsStream(n int) []byte {
	var b bytes.Buffer
	b.Write(event("messageStart", `{"role":"assistant"}`))
	for i := range n {
		b.Write(event("contentBlockStart", fmt.Sprintf(`{"contentBlockIndex":%d,"start":{"toolUse":{"toolUseId":"tooluse_%d","name":%q}}}`, i, i, providertest.ManyCallName(i))))
	}
	for i := range n {
		b.Write(event("contentBlockDelta", fmt.Sprintf(`{"contentBlockIndex":%d,"delta":{"toolUse":{"input":%s}}}`, i, strconv.Quote(providertest.ManyCallArgs(i)))))
	}
	for i := range n {
		b.Write(event("contentBlockStop", fmt.Sprintf(`{"contentBlockIndex":%d}`, i)))
	}
	b.Write(event("messageStop", `{"stopReason":"tool_use"}`))
	b.Write(event("metadata", `{"usage":{"inputTokens":1,"outputTokens":2,"totalTokens":3},"metrics":{"latencyMs":1}}`))
	return b.Bytes()
}

// BenchmarkManyToolCalls assembles one converse-stream answer of 12.5k,
// 50k and 100k tool calls through Stream from a local server; ns/op grows
// linearly with the number of calls.
func BenchmarkManyToolCalls(b *testing.B) {
	providertest.BenchManyCalls(b, manyCallsStream, func(tb testing.TB, body []byte) providers.Transport {
		srv, _ := startServer(tb, providertest.WireReply{Body: body})
		return newTestTransport(tb, srv, true)
	})
}
