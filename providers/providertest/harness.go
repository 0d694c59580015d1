package providertest

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"talaria/providers"
)

// This file holds what every wire's tests build the same way: the server
// of a fixture, the transport under test, the objects of a request body,
// the stream benchmark.

// FixtureServer starts a WireServer answering every request with the
// testdata fixture (see ReadFixture) as its body.
func FixtureServer(t testing.TB, fixture string) *WireServer {
	t.Helper()
	return StartWire(t, WireReply{Body: ReadFixture(t, fixture)})
}

// Serve starts a WireServer answering every request with rep and returns
// its httptest server and its requests (buffered, so the handler never
// blocks on them).
func Serve(t testing.TB, rep WireReply) (*httptest.Server, <-chan Captured) {
	t.Helper()
	s := StartWire(t, rep)
	return s.Server, s.Requests()
}

// Wire builds the transport under test with factory for ep, as the wire's
// own type T; an error ends the test.
func Wire[T providers.Transport](t testing.TB, factory providers.Factory, ep providers.Endpoint) T {
	t.Helper()
	tr, err := factory(ep)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return tr.(T)
}

// NoEnv is an environment lookup that finds nothing, for the wires that
// read their defaults from the environment.
func NoEnv(string) string { return "" }

// Objects returns v, a JSON array decoded into any, as its objects; a
// value that is not an array gives none, an element that is not an object
// a nil map.
func Objects(v any) []map[string]any {
	raw, _ := v.([]any)
	out := make([]map[string]any, len(raw))
	for i, e := range raw {
		out[i], _ = e.(map[string]any)
	}
	return out
}

// BenchStream is a wire's stream benchmark: it streams SimpleRequest
// through tr, whose server answers with body, once per iteration,
// reporting body's size per op and the allocations, and fails unless each
// answer reports some text and finishes with "stop".
func BenchStream(b *testing.B, tr providers.Transport, body []byte) {
	b.Helper()
	req := SimpleRequest()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		resp, err := tr.Stream(context.Background(), req, func(d providers.Delta) { n += len(d.Text) })
		if err != nil || resp.FinishReason != "stop" || n == 0 {
			b.Fatalf("stream: %v %+v", err, resp)
		}
	}
}

// CheckAnswer checks an assembled response against want: its content,
// reasoning, tool calls, finish reason (normalized and raw), usage and
// model; that every call without Extra (so one that runs) has JSON
// arguments; that it is not empty; and, with log, that the text and
// reasoning deltas reported spell the same content and reasoning.
func CheckAnswer(t testing.TB, got *providers.Response, want providers.Response, log *DeltaLog) {
	t.Helper()
	if got.Content != want.Content || got.Reasoning != want.Reasoning {
		t.Errorf("content %q reasoning %q, want %q / %q", got.Content, got.Reasoning, want.Content, want.Reasoning)
	}
	if log != nil && (log.Text.String() != want.Content || log.Reasoning.String() != want.Reasoning) {
		t.Errorf("deltas text %q reasoning %q, want %q / %q", log.Text.String(), log.Reasoning.String(), want.Content, want.Reasoning)
	}
	if !reflect.DeepEqual(got.ToolCalls, want.ToolCalls) {
		t.Errorf("tool calls\n got %+v\nwant %+v", got.ToolCalls, want.ToolCalls)
	}
	for _, c := range got.ToolCalls {
		if len(c.Extra) == 0 && !json.Valid([]byte(c.Arguments)) {
			t.Errorf("call %s is runnable with invalid JSON %q", c.ID, c.Arguments)
		}
	}
	if got.FinishReason != want.FinishReason || got.RawFinishReason != want.RawFinishReason {
		t.Errorf("finish %q/%q, want %q/%q", got.FinishReason, got.RawFinishReason, want.FinishReason, want.RawFinishReason)
	}
	if got.Usage != want.Usage {
		t.Errorf("usage %+v, want %+v", got.Usage, want.Usage)
	}
	if got.Model != want.Model {
		t.Errorf("model %q, want %q", got.Model, want.Model)
	}
	if got.Empty() {
		t.Error("empty response")
	}
}

// HTTPErrorCase is one error answer that a wire must turn into an
// APIError (see CheckHTTPErrors).
type HTTPErrorCase struct {
	Name    string
	Status  int
	Headers map[string]string
	Body    string
	// Msg is a prefix of the message; Type and Code are exact.
	Msg, Type, Code string
	// Reason, when set, is the reason providers.Classify must give.
	Reason providers.FailoverReason
	// Check holds headers that must come back with these values.
	Check map[string]string
}

// CheckHTTPErrors serves each case to a transport that build makes for
// the case's server and checks the error: no response, an APIError of
// provider with the status, not MidStream, the raw body, the message,
// type, code, Check headers and reason of the case, after exactly one
// request (nothing is retried below the loop).
func CheckHTTPErrors(t *testing.T, provider string, build func(testing.TB, *WireServer) providers.Transport, cases []HTTPErrorCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			srv := StartWire(t, WireReply{Status: tc.Status, Headers: tc.Headers, Body: []byte(tc.Body)})
			resp, err := build(t, srv).Stream(context.Background(), SimpleRequest(), nil)
			if resp != nil {
				t.Errorf("response %+v with an HTTP error", resp)
			}
			ae := AsAPIError(t, err)
			if ae.Status != tc.Status || ae.MidStream || ae.Provider != provider || ae.Body != tc.Body {
				t.Errorf("status %d midstream %v provider %q body %q", ae.Status, ae.MidStream, ae.Provider, ae.Body)
			}
			if !strings.HasPrefix(ae.Message, tc.Msg) || ae.Type != tc.Type || ae.Code != tc.Code {
				t.Errorf("message %q type %q code %q, want %q… %q %q", ae.Message, ae.Type, ae.Code, tc.Msg, tc.Type, tc.Code)
			}
			for k, v := range tc.Check {
				if got := ae.Headers.Get(k); got != v {
					t.Errorf("header %s = %q, want %q", k, got, v)
				}
			}
			if c := providers.Classify(err); tc.Reason != "" && c.Reason != tc.Reason {
				t.Errorf("Classify reason %q, want %q", c.Reason, tc.Reason)
			}
			if n := srv.Count(); n != 1 {
				t.Errorf("%d requests, want exactly 1", n)
			}
		})
	}
}

// HoldFixture is HoldServer for the part of a testdata fixture before the
// first cutAt.
func HoldFixture(t testing.TB, fixture, cutAt string) *httptest.Server {
	t.Helper()
	text := string(ReadFixture(t, fixture))
	return HoldServer(t, text[:strings.Index(text, cutAt)])
}
