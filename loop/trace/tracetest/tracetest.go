// Package tracetest runs a scripted turn for the tests of loop/trace and
// its exporter: real loop, real wire code against an httptest provider.
package tracetest

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"talaria/loop"
	"talaria/loop/trace"
	"talaria/providers"
	"talaria/providers/openaichat"
	pt "talaria/providers/providertest"
	"talaria/tools"
)

// barrierRead is a read_file stand-in: each call waits until all n calls
// of the batch have started, so the three run side by side for sure.
type barrierRead struct {
	wg *sync.WaitGroup
}

func (barrierRead) Name() string         { return "read_file" }
func (barrierRead) Traits() tools.Traits { return tools.ReadFileTool{}.Traits() }
func (barrierRead) Description() string  { return "read a file" }
func (barrierRead) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)
}
func (b barrierRead) Run(ctx context.Context, _ *tools.Env, args json.RawMessage) tools.Result {
	b.wg.Done()
	done := make(chan struct{})
	go func() { b.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		return tools.Result{Output: "cancelled", IsError: true}
	}
	return tools.Result{Output: "contents of " + string(args)}
}

// ScriptedTurn runs one turn: a 429 with Retry-After, then a batch of
// three parallel reads (a steer arrives while they run), then the answer.
func ScriptedTurn(t testing.TB, sinks ...func(loop.Event)) *trace.Log {
	srv := pt.New(t)
	srv.Push(
		pt.Error(429, `{"error":{"message":"Rate limit reached","type":"rate_limit_exceeded"}}`, map[string]string{"Retry-After": "0"}),
		pt.ToolCalls(pt.Call{Name: "read_file", Args: `{"path":"a.txt"}`}, pt.Call{Name: "read_file", Args: `{"path":"b.txt"}`}, pt.Call{Name: "read_file", Args: `{"path":"c.txt"}`}),
		pt.Text("done"),
	)
	tr, err := openaichat.New(providers.Endpoint{Provider: "openai", Model: "gpt-test", BaseURL: srv.URL(), APIKey: "sk-secret-value"})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(3)
	var got *trace.Log
	tl := trace.NewTimeline("s1", func(l *trace.Log) { got = l })
	var agent *loop.Agent
	steered := false
	sink := tl.Wrap(func(e loop.Event) {
		if _, ok := e.(*loop.ToolStarted); ok && !steered {
			steered = true
			agent.Steer("also check d.txt")
		}
		for _, s := range sinks {
			s(e)
		}
	})
	agent = loop.New(loop.Options{SessionID: "s1", Transport: tr, Provider: "openai", Model: "gpt-test",
		Tools: tools.NewRegistry(barrierRead{wg: &wg}), Sink: sink,
		Retry: loop.RetryPolicy{MaxRetries: 3, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond, RetryAfterCap: time.Minute}})
	res, err := agent.Run(context.Background(), "read the three files")
	if err != nil || !res.Completed {
		t.Fatalf("turn: %v %+v", err, res)
	}
	if got == nil {
		t.Fatal("no span log at turn.finished")
	}
	return got
}
