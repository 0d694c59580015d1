package openaichat

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
	tr := newTestTransport(t, providertest.StartWire(t, providertest.WireReply{Body: []byte(body)}).Server, "test")
	resp, err := tr.Stream(context.Background(), providertest.SimpleRequest(), nil)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	return resp
}

// TestManyToolCallsInterleaved assembles a reply whose calls' ids, names
// and arguments arrive interleaved (every call started, then every call's
// arguments by index): each call gets its own arguments, in order. The
// speed of this path is BenchmarkManyToolCalls's.
func TestManyToolCallsInterleaved(t *testing.T) {
	const n = 500
	providertest.CheckManyCalls(t, streamBody(t, string(manyCallsStream(n))), n)
}

// toolChunk is one data event carrying the tool-call fragments given as
// JSON objects.
func toolChunk(frags ...string) string {
	return `data: {"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"tool_calls":[` +
		strings.Join(frags, ",") + `]},"finish_reason":null}]}` + "\n\n"
}

const toolsEnd = `data: {"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\ndata: [DONE]\n\n"

// TestToolCallLookupCases pins how fragments find their call, which the
// id and index maps must keep: out-of-order indexes, fragments by id
// alone, a reused index with a new id, a repeated id, and id-less
// continuations.
func TestToolCallLookupCases(t *testing.T) {
	tests := []struct {
		name   string
		chunks []string
		want   []providers.ToolCall
	}{
		{
			name: "indexes out of order",
			chunks: []string{
				toolChunk(`{"index":2,"id":"c2","function":{"name":"two","arguments":"{\"a\":"}}`),
				toolChunk(`{"index":0,"id":"c0","function":{"name":"zero","arguments":"{"}}`),
				toolChunk(`{"index":1,"id":"c1","function":{"name":"one","arguments":"{}"}}`),
				toolChunk(`{"index":0,"function":{"arguments":"}"}}`, `{"index":2,"function":{"arguments":"2}"}}`),
			},
			want: []providers.ToolCall{
				{ID: "c2", Name: "two", Arguments: `{"a":2}`},
				{ID: "c0", Name: "zero", Arguments: `{}`},
				{ID: "c1", Name: "one", Arguments: `{}`},
			},
		},
		{
			name: "fragments by id alone, interleaved",
			chunks: []string{
				toolChunk(`{"id":"x","function":{"name":"ex","arguments":"{\"x\""}}`),
				toolChunk(`{"id":"y","function":{"name":"why","arguments":"{\"y\""}}`),
				toolChunk(`{"id":"x","function":{"arguments":":1}"}}`),
				toolChunk(`{"id":"y","function":{"arguments":":2}"}}`),
			},
			want: []providers.ToolCall{
				{ID: "x", Name: "ex", Arguments: `{"x":1}`},
				{ID: "y", Name: "why", Arguments: `{"y":2}`},
			},
		},
		{
			name: "index reused with a new id is a new call",
			chunks: []string{
				toolChunk(`{"index":0,"id":"a","function":{"name":"read","arguments":"{}"}}`),
				toolChunk(`{"index":0,"id":"b","function":{"name":"read","arguments":"{\"b\":1}"}}`),
				toolChunk(`{"index":0,"function":{"arguments":""}}`),
			},
			want: []providers.ToolCall{
				{ID: "a", Name: "read", Arguments: `{}`},
				{ID: "b", Name: "read", Arguments: `{"b":1}`},
			},
		},
		{
			name: "a repeated id continues the first call holding it",
			chunks: []string{
				toolChunk(`{"index":0,"id":"d","function":{"name":"dup","arguments":"{\"p\""}}`),
				toolChunk(`{"index":1,"id":"e","function":{"name":"other","arguments":"{}"}}`),
				toolChunk(`{"index":5,"id":"d","function":{"arguments":":0}"}}`),
				toolChunk(`{"index":5,"function":{"arguments":""}}`),
			},
			want: []providers.ToolCall{
				{ID: "d", Name: "dup", Arguments: `{"p":0}`},
				{ID: "e", Name: "other", Arguments: `{}`},
			},
		},
		{
			name: "id-less argument fragments continue the last call",
			chunks: []string{
				toolChunk(`{"function":{"name":"first","arguments":"{"}}`),
				toolChunk(`{"function":{"arguments":"}"}}`),
				toolChunk(`{"function":{"name":"second","arguments":"{}"}}`),
			},
			want: []providers.ToolCall{
				{ID: "call_0", Name: "first", Arguments: `{}`},
				{ID: "call_1", Name: "second", Arguments: `{}`},
			},
		},
		{
			name: "an id learnt late by index is found by id",
			chunks: []string{
				toolChunk(`{"index":0,"function":{"name":"late","arguments":"{"}}`),
				toolChunk(`{"index":0,"id":"L","function":{"arguments":""}}`),
				toolChunk(`{"id":"L","function":{"arguments":"}"}}`),
			},
			want: []providers.ToolCall{{ID: "L", Name: "late", Arguments: `{}`}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := streamBody(t, strings.Join(tt.chunks, "")+toolsEnd)
			if !reflect.DeepEqual(resp.ToolCalls, tt.want) {
				t.Errorf("calls:\n got %+v\nwant %+v", resp.ToolCalls, tt.want)
			}
		})
	}
}
