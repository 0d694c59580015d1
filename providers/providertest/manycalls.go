package providertest

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"talaria/providers"
)

// ManyCallSizes are the reply widths (tool calls in one response) of the
// wires' many-calls benchmarks: linear assembly shows as ns/op growing
// with the width, 8 times from the first to the last.
var ManyCallSizes = []int{12_500, 50_000, 100_000}

// BenchManyCalls runs one sub-benchmark per ManyCallSizes width n: body(n)
// is a reply with n tool calls, served by serve and streamed through the
// transport it returns once per iteration; each answer must hold n calls,
// the i-th named ManyCallName(i).
func BenchManyCalls(b *testing.B, body func(n int) []byte, serve func(testing.TB, []byte) providers.Transport) {
	for _, n := range ManyCallSizes {
		b.Run("calls="+strconv.Itoa(n), func(b *testing.B) {
			raw := body(n)
			tr := serve(b, raw)
			req := SimpleRequest()
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				resp, err := tr.Stream(context.Background(), req, nil)
				if err != nil {
					b.Fatalf("stream: %v", err)
				}
				CheckManyCalls(b, resp, n)
			}
		})
	}
}

// CheckManyCalls checks that resp holds n tool calls in order, the i-th
// named ManyCallName(i) with the arguments ManyCallArgs(i).
func CheckManyCalls(t testing.TB, resp *providers.Response, n int) {
	t.Helper()
	if len(resp.ToolCalls) != n {
		t.Fatalf("got %d tool calls, want %d", len(resp.ToolCalls), n)
	}
	for i, c := range resp.ToolCalls {
		if c.Name != ManyCallName(i) || c.Arguments != ManyCallArgs(i) {
			t.Fatalf("call %d = %s %s, want %s %s", i, c.Name, c.Arguments, ManyCallName(i), ManyCallArgs(i))
		}
	}
}

// ManyCallName is the tool name of the i-th call of a many-calls reply.
func ManyCallName(i int) string { return "tool_" + strconv.Itoa(i) }

// ManyCallArgs is the compact JSON arguments of the i-th call of a
// many-calls reply.
func ManyCallArgs(i int) string { return fmt.Sprintf(`{"n":%d}`, i) }
