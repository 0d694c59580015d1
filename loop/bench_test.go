package loop

import (
	"context"
	"fmt"
	"testing"
	"time"

	"talaria/providers"
	"talaria/providers/openaichat"
	pt "talaria/providers/providertest"
	"talaria/tools"
)

// instantTransport answers at once, so a benchmark measures only the loop.
type instantTransport struct{ resp providers.Response }

func (i instantTransport) Stream(_ context.Context, _ providers.Request, on func(providers.Delta)) (*providers.Response, error) {
	on(providers.Delta{Kind: providers.DeltaText, Text: i.resp.Content})
	r := i.resp
	return &r, nil
}

func history(n int) []providers.Message {
	h := make([]providers.Message, 0, n)
	for i := 0; i < n; i++ {
		switch i % 3 {
		case 0:
			h = append(h, providers.Message{Role: providers.RoleUser, Content: fmt.Sprintf("question %d about the code base", i)})
		case 1:
			h = append(h, providers.Message{Role: providers.RoleAssistant, ToolCalls: []providers.ToolCall{{ID: fmt.Sprint("c", i), Name: "read_file", Arguments: `{"path":"main.go"}`}}})
		default:
			h = append(h, providers.Message{Role: providers.RoleTool, ToolCallID: fmt.Sprint("c", i-1), Content: "1|package main\n2|\n3|func main() {}"})
		}
	}
	return h
}

// BenchmarkTurnOverhead1000 is one turn of one iteration on a session with a
// 1,000-message history: everything but model and tool time.
func BenchmarkTurnOverhead1000(b *testing.B) {
	h := history(1000)
	a := New(Options{
		SessionID: "bench", Transport: instantTransport{resp: providers.Response{Content: "done", FinishReason: "stop"}},
		Model: "m", SystemPrompt: "system", History: h, Tools: tools.NewRegistry(tools.Builtins()...), MaxIterations: 90,
	})
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		a.history = a.history[:len(h)]
		if _, err := a.Run(ctx, "next question"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInterruptLatency measures Interrupt() → Run returned (after
// turn.finished) while the turn waits on a model call, and while a terminal
// command runs.
func BenchmarkInterruptLatency(b *testing.B) {
	for _, where := range []string{"api_call", "terminal"} {
		b.Run(where, func(b *testing.B) {
			var total time.Duration
			for i := 0; i < b.N; i++ {
				total += interruptOnce(b, where)
			}
			b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "ms/interrupt")
		})
	}
}

func interruptOnce(b *testing.B, where string) time.Duration {
	srv := pt.New(b)
	tr, _ := openaichat.New(providers.Endpoint{Provider: "custom", Model: "m", BaseURL: srv.URL(), HTTPClient: srv.Client()})
	started := make(chan struct{}, 1)
	sink := func(e Event) {
		if _, ok := e.(*ToolStarted); ok {
			started <- struct{}{}
		}
	}
	a := New(Options{SessionID: "b", Transport: tr, Model: "m", Tools: tools.NewRegistry(tools.Builtins()...),
		ToolEnv: tools.Env{Cwd: b.TempDir()}, Sink: sink, MaxIterations: 5})
	hold := make(chan struct{})
	defer close(hold)
	if where == "api_call" {
		srv.Push(pt.Reply{Chunks: pt.TextChunks("x", "stop"), Hold: hold})
	} else {
		srv.Push(pt.ToolCalls(pt.Call{Name: "terminal", Args: `{"command":"sleep 60"}`}))
	}
	done := make(chan struct{})
	go func() { _, _ = a.Run(context.Background(), "go"); close(done) }()
	if where == "api_call" {
		<-srv.Started()
	} else {
		<-started
	}
	t0 := time.Now()
	a.Interrupt()
	<-done
	return time.Since(t0)
}
