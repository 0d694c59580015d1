package loop

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"talaria/providers"
	"talaria/providers/openaichat"
	"talaria/tools"
)

// wireAnswer is a whole chat-completions stream answering "done".
const wireAnswer = "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"done\"},\"finish_reason\":null}]}\n\n" +
	"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":1}}\n\n" +
	"data: [DONE]\n\n"

// BenchmarkCallThroughWire is one turn of one model call on a session of
// N messages, with the request encoded by the real chat_completions wire and
// sent to an httptest server that discards the body and answers at once:
// what a call costs the loop and the wire, as the history grows. The
// per-call cost should stay flat in N (issue 15 part 8).
func BenchmarkCallThroughWire(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, wireAnswer)
	}))
	defer srv.Close()
	benchCalls(b, srv.URL, srv.Client())
}

// BenchmarkCallInProcess is BenchmarkCallThroughWire without the socket:
// the HTTP client's RoundTripper reads the body into io.Discard and answers
// at once, so what is measured is the CPU of the loop, the wire's encoding
// and the HTTP client, without the kernel copying the request through
// loopback TCP and the server reading it (a cost of the bytes sent, which
// grows with the history whatever the agent does: every call sends the
// whole conversation).
func BenchmarkCallInProcess(b *testing.B) {
	benchCalls(b, "http://model.invalid", &http.Client{Transport: discardRoundTrip{}})
}

// discardRoundTrip answers every request with wireAnswer after reading
// the body.
type discardRoundTrip struct{}

func (discardRoundTrip) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		_ = r.Body.Close()
	}
	return &http.Response{
		StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {"text/event-stream"}},
		Body:    io.NopCloser(strings.NewReader(wireAnswer)),
		Request: r,
	}, nil
}

// benchCalls runs one-call turns on histories of 2,000 and 10,000 messages
// through the chat_completions wire at base, reporting the process's CPU
// time per call (all threads: the GC and, for the socket variant, the test
// server too) as cpu-ns/op.
func benchCalls(b *testing.B, base string, hc *http.Client) {
	for _, n := range []int{2000, 10000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			tr, err := openaichat.New(providers.Endpoint{Provider: "custom", Model: "m", BaseURL: base + "/v1", HTTPClient: hc})
			if err != nil {
				b.Fatal(err)
			}
			h := history(n)
			a := New(Options{
				SessionID: "bench", Transport: tr, Model: "m", SystemPrompt: "system",
				History: h, Tools: tools.NewRegistry(tools.Builtins()...), MaxIterations: 90,
			})
			ctx := context.Background()
			if _, err := a.Run(ctx, "warm up"); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			cpu := processCPU()
			for i := 0; i < b.N; i++ {
				// Back to n messages: the turn's two are cut off in place,
				// as a history cut shorter is (see requestView).
				a.history = a.history[:len(h)]
				if _, err := a.Run(ctx, "next question"); err != nil {
					b.Fatal(err)
				}
			}
			// CPU time rather than wall time: on a shared machine it is
			// what other processes disturb least.
			if used := processCPU() - cpu; used > 0 {
				b.ReportMetric(float64(used)/float64(b.N), "cpu-ns/op")
			}
		})
	}
}
