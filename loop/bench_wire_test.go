package loop

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
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
	for _, n := range []int{2000, 10000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = io.WriteString(w, wireAnswer)
			}))
			defer srv.Close()
			tr, err := openaichat.New(providers.Endpoint{Provider: "custom", Model: "m", BaseURL: srv.URL + "/v1", HTTPClient: srv.Client()})
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
			for i := 0; i < b.N; i++ {
				a.history = a.history[:len(h)]
				if _, err := a.Run(ctx, "next question"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
