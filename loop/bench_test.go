package loop

import (
	"context"
	"fmt"
	"testing"

	"talaria/providers"
	"talaria/tools"
)

// instantTransport answers at once, so a benchmark measures only the loop.
type instantTransport struct{ resp providers.Response }

func (instantTransport) APIMode() string                                    { return "instant" }
func (instantTransport) ConvertMessages(m []providers.Message) (any, error) { return m, nil }
func (instantTransport) ConvertTools(t []providers.ToolSpec) (any, error)   { return t, nil }
func (instantTransport) BuildRequest(r providers.Request) (any, error)      { return r, nil }
func (i instantTransport) NormalizeResponse(any) (*providers.Response, error) {
	r := i.resp
	return &r, nil
}
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
