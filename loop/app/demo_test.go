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
	// A long tick: the countdown must end because the steer arrived.
	win := newSteerWindow(time.Hour)
	a = loop.New(loop.Options{
		SessionID: "demo", Transport: scripted.New(demoScript(".", win), 0), Model: "talaria-tour",
		SystemPrompt: "tour", Tools: tools.NewRegistry(tools.ReadFileTool{}, tools.SearchFilesTool{}),
		ToolEnv: tools.Env{Cwd: "."}, Sink: win.watch(sink), MaxIterations: 8,
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
	if all := strings.Join(contents(a.History()), "\n"); !strings.Contains(all, "Waiting for your steer: 10… steer received") {
		t.Fatalf("the countdown did not stop at the steer:\n%s", all)
	}
}

// TestDemoSteerWindowCountsDown: with no steer the window streams the
// whole countdown (10 steps, one per tick) and then moves on; a steer
// queued at any point ends it at once.
func TestDemoSteerWindowCountsDown(t *testing.T) {
	win := newSteerWindow(time.Microsecond)
	var got strings.Builder
	if err := win.countdown(context.Background(), func(s string) { got.WriteString(s) }); err != nil {
		t.Fatal(err)
	}
	want := "\n\nWaiting for your steer: 10… 9… 8… 7… 6… 5… 4… 3… 2… 1… no steer this time, carrying on."
	if got.String() != want {
		t.Fatalf("countdown = %q", got.String())
	}
	if demoSteerSeconds < 8 {
		t.Fatalf("the steering window is %d s, under 8", demoSteerSeconds)
	}

	win = newSteerWindow(time.Hour)
	var fwd []string
	sink := win.watch(func(e loop.Event) { fwd = append(fwd, e.Meta().Type) })
	sink(&loop.SteerQueued{Header: loop.Header{Type: loop.TypeSteerQueued}, Text: "x"})
	got.Reset()
	if err := win.countdown(context.Background(), func(s string) { got.WriteString(s) }); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(got.String(), "10… steer received, carrying on.") || len(fwd) != 1 {
		t.Fatalf("steered countdown = %q, forwarded %v", got.String(), fwd)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := newSteerWindow(time.Hour).countdown(ctx, func(string) {}); err == nil {
		t.Fatal("a cancelled countdown returned no error")
	}
}

func contents(h []providers.Message) []string {
	out := make([]string, len(h))
	for i, m := range h {
		out[i] = m.Content
	}
	return out
}
