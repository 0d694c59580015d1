package anthropic

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"talaria/providers"
	"talaria/providers/providertest"
)

// streamBody streams body through a transport against a local server.
func streamBody(t *testing.T, body string) *providers.Response {
	t.Helper()
	tr := newTestTransport(t, providertest.StartWire(t, providertest.WireReply{Body: []byte(body)}))
	resp, err := tr.Stream(context.Background(), providertest.SimpleRequest(), nil)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	return resp
}

// TestManyToolCallsInterleaved assembles a message whose tool_use blocks
// are all started before any input arrives: each call gets its own
// arguments, in order. The speed of this path is BenchmarkManyToolCalls's.
func TestManyToolCallsInterleaved(t *testing.T) {
	const n = 500
	providertest.CheckManyCalls(t, streamBody(t, string(manyCallsStream(n))), n)
}

// TestBlockLookupCases pins how deltas find their block, which the index
// map must keep: a reused index goes to the latest block, a delta or stop
// for an index never started is dropped.
func TestBlockLookupCases(t *testing.T) {
	ev := func(data string) string {
		typ := strings.SplitN(strings.TrimPrefix(data, `{"type":"`), `"`, 2)[0]
		return "event: " + typ + "\ndata: " + data + "\n\n"
	}
	start := func(idx, id, name string) string {
		return ev(`{"type":"content_block_start","index":` + idx + `,"content_block":{"type":"tool_use","id":"` + id + `","name":"` + name + `","input":{}}}`)
	}
	delta := func(idx, js string) string {
		return ev(`{"type":"content_block_delta","index":` + idx + `,"delta":{"type":"input_json_delta","partial_json":"` + js + `"}}`)
	}
	stop := func(idx string) string { return ev(`{"type":"content_block_stop","index":` + idx + `}`) }
	body := ev(`{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","model":"c","content":[],"usage":{"input_tokens":1,"output_tokens":1}}}`) +
		start("1", "t1", "first") + start("0", "t0", "zero") +
		delta("0", `{\"z\":0}`) + delta("7", `{\"lost\":1}`) + delta("1", `{}`) + stop("1") + stop("7") +
		start("1", "t2", "second") + delta("1", `{\"s\":2}`) + stop("1") + stop("0") +
		ev(`{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":3}}`) + ev(`{"type":"message_stop"}`)
	want := []providers.ToolCall{
		{ID: "t1", Name: "first", Arguments: `{}`},
		{ID: "t0", Name: "zero", Arguments: `{"z":0}`},
		{ID: "t2", Name: "second", Arguments: `{"s":2}`},
	}
	resp := streamBody(t, body)
	if !reflect.DeepEqual(resp.ToolCalls, want) || resp.FinishReason != providers.FinishToolCalls {
		t.Errorf("got %+v (%s)\nwant %+v", resp.ToolCalls, resp.FinishReason, want)
	}
}
