package loop

import (
	"strings"
	"testing"
	"time"

	"talaria/providers"

	pt "talaria/providers/providertest"
)

func TestContentPolicyBlockedEndsWithoutRetry(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Push(pt.Error(400, `{"error":{"message":"Invalid prompt: your prompt was flagged as potentially violating our usage policy. This request violates our usage policies.","type":"invalid_request_error","code":"invalid_prompt"}}`, nil))
	res := f.run(t, "something bad")
	if res.ExitReason.Kind != ExitContentPolicyBlocked || res.Completed || len(f.srv.Requests()) != 1 || !strings.Contains(res.FinalResponse, "content policy") {
		t.Fatalf("result: %+v (%d requests)", res, len(f.srv.Requests()))
	}
}

func TestMaxIterationsReachedAfterRefunds(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.MaxIterations = 2 })
	// The truncated reply is a continuation restart (refunded), so three
	// calls run within a budget of two before it runs out.
	search := pt.Call{Name: "search_files", Args: `{"pattern":"q"}`}
	f.srv.Push(pt.Truncated("part one "), pt.ToolCalls(search), pt.ToolCalls(search), pt.Text("Summary of the parts."))
	res := f.run(t, "long answer please")
	if res.ExitReason.String() != "max_iterations_reached(3/2)" || res.FinalResponse != "Summary of the parts." || res.Completed {
		t.Fatalf("result: %+v", res)
	}
}

func TestInterruptOnLastIterationIsAnInterrupt(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.MaxIterations = 1 })
	f.srv.Push(pt.ToolCalls(pt.Call{Name: "terminal", Args: `{"command":"sleep 60"}`}))
	done := f.runAsync("go")
	f.rec.waitFor(t, TypeToolStarted)
	f.agent.Interrupt()
	res := await(t, done)
	if res.ExitReason.Kind != ExitInterruptedByUser || len(f.srv.Requests()) != 1 {
		t.Fatalf("result: %+v (%d requests)", res, len(f.srv.Requests()))
	}
	for _, m := range f.agent.History() {
		if strings.Contains(m.Content, "maximum number of tool-calling iterations") {
			t.Fatal("the summary request must not be added after an interrupt")
		}
	}
}

func TestSingleKeyRateLimitRetriesWithBackoff(t *testing.T) {
	srv := pt.New(t)
	f := chainFixture(t, providers.Backend{Provider: "openai", Model: "gpt-4.1", BaseURL: srv.URL(), APIMode: "chat_completions", APIKeys: []string{"sk-only"}})
	f.agent.opts.Retry.BaseDelay, f.agent.opts.Retry.MaxDelay = time.Millisecond, time.Millisecond
	srv.Push(pt.Error(429, `{"error":{"message":"Rate limit reached for gpt-4.1","type":"requests","code":"rate_limit_exceeded"}}`, nil), pt.Text("after the wait"))
	res := f.run(t, "hi")
	if !res.Completed || res.FinalResponse != "after the wait" || len(ofType[*CredentialRotated](f.rec)) != 0 {
		t.Fatalf("result: %+v", res)
	}
}

func TestExhaustedKeysFallBackAtTurnStart(t *testing.T) {
	primary, backup := pt.New(t), pt.New(t)
	f := chainFixture(t,
		providers.Backend{Provider: "openai", Model: "a", BaseURL: primary.URL(), APIMode: "chat_completions", APIKeys: []string{"k1", "k2"}},
		providers.Backend{Provider: "custom", Model: "b", BaseURL: backup.URL(), APIMode: "chat_completions"})
	quota := `{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}`
	primary.Push(pt.Error(429, quota, nil), pt.Error(429, quota, nil))
	backup.Push(pt.Text("backup one"), pt.Text("backup two"))
	if res := f.run(t, "one"); res.FinalResponse != "backup one" {
		t.Fatalf("turn 1: %+v", res)
	}
	// Both keys are resting: the next turn goes straight to the fallback.
	if res := f.run(t, "two"); res.FinalResponse != "backup two" || len(primary.Requests()) != 2 {
		t.Fatalf("turn 2: %+v, primary got %d requests", res, len(primary.Requests()))
	}
}
