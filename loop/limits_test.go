package loop

import (
	"context"
	"errors"
	"strings"
	"testing"

	"talaria/providers"
	"talaria/providers/providertest"
)

// A streamed answer past max_response_bytes is cut: the turn ends with
// response_too_large, keeps the text that arrived, and names the key.
func TestResponseOverTheCapIsCut(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.MaxResponseBytes = 1000 })
	f.srv.Push(providertest.Text(strings.Repeat("xxxxxxxxx ", 500)))
	res := f.run(t, "write a lot")
	if res.ExitReason.Kind != ExitResponseTooLarge || res.Completed {
		t.Fatalf("exit %q completed %v", res.ExitReason, res.Completed)
	}
	if n := len(res.FinalResponse); n < 990 || n > 1100 || strings.Trim(res.FinalResponse, "x ") != "" {
		t.Fatalf("kept %d bytes: %.40q", n, res.FinalResponse)
	}
	if !strings.Contains(res.Explanation, "agent.max_response_bytes") {
		t.Fatalf("explanation %q does not name the key", res.Explanation)
	}
	if len(f.srv.Requests()) != 1 {
		t.Fatalf("a cut response was retried: %d requests", len(f.srv.Requests()))
	}
	h := f.agent.History()
	if last := h[len(h)-1]; last.Content != res.FinalResponse {
		t.Fatalf("the partial answer is not the last message: %+v", last)
	}
}

// Tool arguments count too: a response whose tool call carries more than
// the cap runs no tool.
func TestToolArgumentsOverTheCap(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.MaxResponseBytes = 100 })
	f.srv.Push(providertest.ToolCalls(providertest.Call{Name: "write_file", Args: `{"path":"big.txt","content":"` + strings.Repeat("y", 500) + `"}`}))
	res := f.run(t, "write")
	if res.ExitReason.Kind != ExitResponseTooLarge {
		t.Fatalf("exit %q", res.ExitReason)
	}
	if len(ofType[*ToolStarted](f.rec)) != 0 {
		t.Fatal("a tool ran from an oversized response")
	}
}

// A prompt over MaxPromptBytes is refused before anything is saved or
// sent.
func TestPromptOverTheLimitIsRefused(t *testing.T) {
	f := newFixture(t, nil)
	_, err := f.agent.Run(context.Background(), strings.Repeat("z", MaxPromptBytes+1))
	var big *PromptTooLargeError
	if !errors.As(err, &big) || !strings.Contains(err.Error(), "4 MiB") {
		t.Fatalf("got %v", err)
	}
	if len(f.srv.Requests()) != 0 || len(f.agent.History()) != 0 {
		t.Fatal("the prompt was sent or kept")
	}
	// The TUI starts turns with Start: the same limit holds there.
	if err := f.agent.Start(context.Background(), strings.Repeat("z", MaxPromptBytes+1)); !errors.As(err, &big) {
		t.Fatalf("Start: got %v", err)
	}
	if f.agent.Busy() || len(f.srv.Requests()) != 0 || len(f.agent.History()) != 0 {
		t.Fatal("Start began a turn on a prompt over the limit")
	}
}

// A response with more than MaxToolCalls tool calls is cut and runs none
// of them: the turn ends with response_too_large and says why.
func TestToolCallsOverTheCap(t *testing.T) {
	f := newFixture(t, nil)
	calls := make([]providertest.Call, MaxToolCalls+1)
	for i := range calls {
		calls[i] = providertest.Call{Name: "read_file", Args: `{"path":"a.txt"}`}
	}
	f.srv.Push(providertest.ToolCalls(calls...))
	res := f.run(t, "read it many times")
	if res.ExitReason.Kind != ExitResponseTooLarge || res.Completed {
		t.Fatalf("exit %q completed %v", res.ExitReason, res.Completed)
	}
	if !strings.Contains(res.Explanation, "1024 tool calls") {
		t.Fatalf("explanation %q does not name the cap", res.Explanation)
	}
	if n := len(ofType[*ToolStarted](f.rec)); n != 0 {
		t.Fatalf("%d tools ran from a response over the call cap", n)
	}
	if len(f.srv.Requests()) != 1 {
		t.Fatalf("a cut response was retried: %d requests", len(f.srv.Requests()))
	}
}

// A response at the cap is not cut.
func TestToolCallsAtTheCap(t *testing.T) {
	var g sizeGuard
	g.cancel = func() { t.Fatal("cut at the cap") }
	for i := range MaxToolCalls {
		g.add(providers.Delta{Kind: providers.DeltaToolCall, ToolIndex: i})
	}
	resp := &providers.Response{ToolCalls: make([]providers.ToolCall, MaxToolCalls)}
	if err := g.check(resp, nil); err != nil {
		t.Fatalf("check: %v", err)
	}
}
