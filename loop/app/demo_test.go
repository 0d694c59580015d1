package app

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"talaria/loop"
	"talaria/providers"
	"talaria/providers/scripted"
	"talaria/tools"
)

// TestDemoTourRunsTheRealLoop plays the tour script through the real loop
// and read-only tools on this package's directory, steering mid-turn.
func TestDemoTourRunsTheRealLoop(t *testing.T) {
	var mu sync.Mutex
	var types []string
	steerOnce := sync.Once{}
	var a *loop.Agent
	sink := func(e loop.Event) {
		mu.Lock()
		types = append(types, e.Meta().Type)
		mu.Unlock()
		if _, ok := e.(*loop.RetryScheduled); ok {
			steerOnce.Do(func() { go a.Steer("focus on the tests") })
		}
	}
	a = loop.New(loop.Options{
		SessionID: "demo", Transport: scripted.New(demoScript("."), 0), Model: "talaria-tour",
		SystemPrompt: "tour", Tools: tools.NewRegistry(tools.ReadFileTool{}, tools.SearchFilesTool{}),
		ToolEnv: tools.Env{Cwd: "."}, Sink: sink, MaxIterations: 8,
		Retry: loop.RetryPolicy{MaxRetries: 3, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond, RetryAfterCap: time.Minute},
	})
	res, err := a.Run(context.Background(), DemoPrompt)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Completed || !strings.Contains(res.FinalResponse, "What you just watched") {
		t.Fatalf("tour did not finish: %+v", res)
	}
	got := strings.Join(types, " ")
	for _, want := range []string{"tools.planned", "retry.scheduled", "steer.queued", "steer.delivered", "tool.completed"} {
		if !strings.Contains(got, want) {
			t.Fatalf("tour lacks %s: %s", want, got)
		}
	}
	if all := strings.Join(contents(a.History()), "\n"); !strings.Contains(all, `Got your steer — \"focus on the tests\"`) && !strings.Contains(all, `Got your steer — "focus on the tests"`) {
		t.Fatalf("steer not acknowledged:\n%s", all)
	}
}

func contents(h []providers.Message) []string {
	out := make([]string, len(h))
	for i, m := range h {
		out[i] = m.Content
	}
	return out
}
