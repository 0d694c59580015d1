package responses

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

// TestManyToolCallsInterleaved assembles a reply whose function calls are
// all added before any arguments arrive: each call gets its own arguments,
// in order. The speed of this path is BenchmarkManyToolCalls's.
func TestManyToolCallsInterleaved(t *testing.T) {
	const n = 500
	providertest.CheckManyCalls(t, streamBody(t, string(manyCallsStream(n))), n)
}

// ev is one SSE event of type typ with the JSON data given.
func ev(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }

const completed = `{"type":"response.completed","response":{"id":"r","object":"response","status":"completed","model":"m","output":[]}}`

// TestCallLookupCases pins how events find their function call, which the
// item id and output index maps must keep: by output index when the item
// id is missing or unknown, the latest call for a reused output index,
// and a done item never announced.
func TestCallLookupCases(t *testing.T) {
	added := func(idx, item, call, name string) string {
		return ev("response.output_item.added", `{"type":"response.output_item.added","output_index":`+idx+`,"item":{"id":"`+item+`","type":"function_call","status":"in_progress","arguments":"","call_id":"`+call+`","name":"`+name+`"}}`)
	}
	delta := func(idx, item, d string) string {
		return ev("response.function_call_arguments.delta", `{"type":"response.function_call_arguments.delta","item_id":"`+item+`","output_index":`+idx+`,"delta":"`+d+`"}`)
	}
	argsDone := func(idx, item string) string {
		return ev("response.function_call_arguments.done", `{"type":"response.function_call_arguments.done","item_id":"`+item+`","output_index":`+idx+`}`)
	}
	tests := []struct {
		name   string
		events []string
		want   []providers.ToolCall
	}{
		{
			name: "by output index when the item id is missing or unknown",
			events: []string{
				added("0", "fc_a", "call_a", "a"), added("1", "fc_b", "call_b", "b"),
				delta("1", "", `{\"b\":`), delta("0", "fc_zz", `{}`), delta("1", "fc_b", `1}`),
				argsDone("0", ""), argsDone("1", "fc_b"),
			},
			want: []providers.ToolCall{
				{ID: "call_a", Name: "a", Arguments: `{}`},
				{ID: "call_b", Name: "b", Arguments: `{"b":1}`},
			},
		},
		{
			name: "a reused output index goes to the latest call; item ids still find the first",
			events: []string{
				added("0", "fc_1", "call_1", "one"), added("0", "fc_2", "call_2", "two"),
				delta("0", "", `{\"two\":2}`), delta("0", "fc_1", `{\"one\":1}`),
				argsDone("0", "fc_1"), argsDone("0", "fc_2"),
			},
			want: []providers.ToolCall{
				{ID: "call_1", Name: "one", Arguments: `{"one":1}`},
				{ID: "call_2", Name: "two", Arguments: `{"two":2}`},
			},
		},
		{
			name: "a done item never announced is a new call",
			events: []string{
				added("0", "fc_1", "call_1", "one"), argsDone("0", "fc_1"),
				ev("response.output_item.done", `{"type":"response.output_item.done","output_index":1,"item":{"id":"fc_9","type":"function_call","status":"completed","arguments":"{\"n\":9}","call_id":"call_9","name":"nine"}}`),
			},
			want: []providers.ToolCall{
				{ID: "call_1", Name: "one", Arguments: `{}`},
				{ID: "call_9", Name: "nine", Arguments: `{"n":9}`},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := streamBody(t, strings.Join(tt.events, "")+ev("response.completed", completed))
			if !reflect.DeepEqual(resp.ToolCalls, tt.want) {
				t.Errorf("calls:\n got %+v\nwant %+v", resp.ToolCalls, tt.want)
			}
		})
	}
}
