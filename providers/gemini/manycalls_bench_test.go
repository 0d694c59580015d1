package gemini

import (
	"bytes"
	"fmt"
	"testing"

	"talaria/providers"
	"talaria/providers/providertest"
)

// manyCallsStream is an answer with n functionCall parts, one whole call
// per chunk (Gemini never splits a call), the last chunk with STOP.
func manyCallsStream(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		finish := ""
		if i == n-1 {
			finish = `,"finishReason":"STOP"`
		}
		fmt.Fprintf(&b, "data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"name\":%q,\"args\":%s}}],\"role\":\"model\"}%s,\"index\":0}],\"modelVersion\":\"gemini-2.5-flash\"}\r\n\r\n",
			providertest.ManyCallName(i), providertest.ManyCallArgs(i), finish)
	}
	return b.Bytes()
}

// BenchmarkManyToolCalls assembles one answer of 12.5k, 50k and 100k
// function calls through Stream from a local server; ns/op grows linearly
// with the number of calls.
func BenchmarkManyToolCalls(b *testing.B) {
	providertest.BenchManyCalls(b, manyCallsStream, func(tb testing.TB, body []byte) providers.Transport {
		srv, _ := providertest.Serve(tb, providertest.WireReply{Body: body})
		return newTestTransport(tb, srv)
	})
}
