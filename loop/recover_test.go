package loop

import (
	"strings"
	"testing"

	pt "talaria/providers/providertest"
)

func emptyReply() pt.Reply { return pt.Reply{Chunks: pt.TextChunks("", "stop")} }

func TestEmptyAfterToolsGetsOneNudge(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Push(pt.ToolCalls(pt.Call{Name: "search_files", Args: `{"pattern":"q"}`}), emptyReply(), pt.Text("Here is the answer."))
	res := f.run(t, "q")
	if !res.Completed || res.FinalResponse != "Here is the answer." {
		t.Fatalf("result: %+v", res)
	}
	msgs := messages(t, f.srv, 2)
	if last := msgs[len(msgs)-1]; last["role"] != "user" || !strings.Contains(last["content"].(string), "returned an empty response") {
		t.Fatalf("nudge not sent: %v", last)
	}
	for _, m := range f.agent.History() {
		if m.Content == postToolNudge || m.Content == emptySentinel {
			t.Fatal("scaffolding kept in history")
		}
	}
}

func TestEmptyExhausted(t *testing.T) {
	f := newFixture(t, nil)
	for i := 0; i < 4; i++ {
		f.srv.Push(emptyReply())
	}
	res := f.run(t, "q")
	if res.ExitReason.Kind != ExitEmptyResponseExhausted || res.FinalResponse != "(empty)" || res.Completed || res.APICalls != 4 {
		t.Fatalf("result: %+v", res)
	}
}

func TestThinkingOnlyPrefill(t *testing.T) {
	f := newFixture(t, nil)
	think := pt.Reply{Chunks: []string{
		`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"","reasoning_content":"Let me think."},"finish_reason":null}]}`,
		`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
	}}
	f.srv.Push(think, pt.Text("Thought it through."))
	res := f.run(t, "q")
	if res.FinalResponse != "Thought it through." || !res.Completed {
		t.Fatalf("result: %+v", res)
	}
	msgs := messages(t, f.srv, 1)
	if last := msgs[len(msgs)-1]; last["role"] != "assistant" {
		t.Fatalf("thinking-only reply not prefilled: %v", msgs)
	}
}

func TestPriorContentAfterHousekeeping(t *testing.T) {
	f := newFixture(t, nil)
	f.agent.opts.Tools.Register(fakeTodo{})
	text := pt.TextChunks("The fix is in place.", "")
	f.srv.Push(pt.Reply{Chunks: append(text[:len(text)-2],
		pt.ToolCallChunks("tool_calls", pt.Call{Name: "todo", Args: `{}`})[1:]...)}, emptyReply())
	res := f.run(t, "q")
	if res.ExitReason.Kind != ExitFallbackPriorContent || res.FinalResponse != "The fix is in place." {
		t.Fatalf("result: %+v", res)
	}
}

func TestMalformedThreeTimesEndsTurn(t *testing.T) {
	f := newFixture(t, nil)
	for i := 0; i < 3; i++ {
		f.srv.Push(pt.ToolCalls(pt.Call{Name: "teleport", Args: `{}`}))
	}
	res := f.run(t, "q")
	if res.ExitReason.Kind != ExitInvalidToolCalls || res.Completed || len(f.srv.Requests()) != 3 {
		t.Fatalf("result: %+v", res)
	}
	h := f.agent.History()
	if h[len(h)-1].Role != "assistant" {
		t.Fatal("dangling tool results after malformed exit")
	}
}

func TestMidStreamCutKeepsDeliveredText(t *testing.T) {
	f := newFixture(t, nil)
	chunks := pt.TextChunks("Partial answer that", "stop")
	f.srv.Push(pt.Reply{Chunks: chunks[:3], Cut: true})
	res := f.run(t, "q")
	if res.ExitReason.Kind != ExitPartialStreamRecovery || res.FinalResponse != "Partial answer" || len(f.srv.Requests()) != 1 {
		t.Fatalf("result: %+v", res)
	}
}

func TestOurOwnBugIsNotRetried(t *testing.T) {
	f := newFixture(t, nil)
	inner := f.agent.opts.Sink
	f.agent.opts.Sink = func(e Event) {
		if _, ok := e.(*MessageDelta); ok {
			panic("renderer bug")
		}
		inner(e)
	}
	f.srv.Push(pt.Text("hello"), pt.Text("hello"))
	res := f.run(t, "q")
	if len(f.srv.Requests()) != 1 || res.Completed || !strings.Contains(res.FinalResponse, "renderer bug") {
		t.Fatalf("local error retried or hidden: %d requests, %+v", len(f.srv.Requests()), res)
	}
}

func TestErrorNearMaxIterations(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.MaxIterations = 2; o.Retry.MaxRetries = 0 })
	f.srv.Push(pt.ToolCalls(pt.Call{Name: "search_files", Args: `{"pattern":"q"}`}),
		pt.Error(500, `{"error":{"message":"boom","type":"server_error"}}`, nil))
	res := f.run(t, "q")
	if res.ExitReason.String() != "error_near_max_iterations(server_error)" {
		t.Fatalf("result: %+v", res)
	}
}
