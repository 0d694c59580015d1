package loop

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"talaria/providers"
	pt "talaria/providers/providertest"
)

func TestTextTurn(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Push(pt.Text("Hello there, friend."))
	res := f.run(t, "hi")
	if res.ExitReason.String() != "text_response(finish_reason=stop)" || !res.Completed || res.FinalResponse != "Hello there, friend." || res.APICalls != 1 {
		t.Fatalf("result: %+v", res)
	}
	if res.Usage.InputTokens != 10 {
		t.Fatalf("usage from the final chunk not counted: %+v", res.Usage)
	}
	got := strings.Join(f.rec.types(), ",")
	for _, want := range []string{"turn.started", "iteration.started", "message.delta", "message.completed", "turn.finished"} {
		if !strings.Contains(got, want) {
			t.Fatalf("missing %s in %s", want, got)
		}
	}
	if !strings.HasSuffix(got, "turn.finished") {
		t.Fatalf("turn.finished is not last: %s", got)
	}
	msgs := messages(t, f.srv, 0)
	if msgs[0]["role"] != "system" || msgs[1]["role"] != "user" || msgs[1]["content"] != "hi" {
		t.Fatalf("request messages: %v", msgs)
	}
	if tools := f.srv.Requests()[0]["tools"]; tools == nil {
		t.Fatal("no tools offered")
	}
	h := f.agent.History()
	if len(h) != 2 || h[1].Role != providers.RoleAssistant {
		t.Fatalf("history: %+v", h)
	}
}

func TestReadFileThenAnswer(t *testing.T) {
	f := newFixture(t, nil)
	if err := os.WriteFile(filepath.Join(f.dir, "notes.txt"), []byte("alpha\nbeta\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.srv.Push(pt.ToolCalls(pt.Call{ID: "call_A", Name: "read_file", Args: `{"path":"notes.txt"}`}), pt.Text("The file says alpha and beta."))
	res := f.run(t, "what is in notes.txt?")
	if !res.Completed || res.APICalls != 2 {
		t.Fatalf("result: %+v", res)
	}
	msgs := messages(t, f.srv, 1)
	tool := msgs[len(msgs)-1]
	if tool["role"] != "tool" || tool["tool_call_id"] != "call_A" || !strings.Contains(tool["content"].(string), "1|alpha") {
		t.Fatalf("tool result not sent back: %v", tool)
	}
	asst := msgs[len(msgs)-2]
	if asst["role"] != "assistant" || !strings.Contains(args(asst["tool_calls"]), "call_A") {
		t.Fatalf("assistant tool call not replayed: %v", asst)
	}
	completed := ofType[*ToolCompleted](f.rec)
	if len(completed) != 1 || !completed[0].OK || completed[0].ID != "call_A" {
		t.Fatalf("tool.completed: %+v", completed)
	}
}

func TestWriteThenPatch(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Push(
		pt.ToolCalls(pt.Call{Name: "write_file", Args: `{"path":"sub/dir/hello.go","content":"package main\n\nfunc main() { println(\"hi\") }\n"}`}),
		pt.ToolCalls(pt.Call{Name: "patch", Args: `{"mode":"replace","path":"sub/dir/hello.go","old_string":"println(\"hi\")","new_string":"println(\"bye\")"}`}),
		pt.Text("Done."),
	)
	res := f.run(t, "write and patch")
	if !res.Completed {
		t.Fatalf("result: %+v", res)
	}
	data, err := os.ReadFile(filepath.Join(f.dir, "sub/dir/hello.go"))
	if err != nil || !strings.Contains(string(data), `println("bye")`) || strings.Contains(string(data), `"hi"`) {
		t.Fatalf("file on disk: %q %v", data, err)
	}
}

func TestMalformedCallsGetReadableErrors(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Push(
		pt.ToolCalls(pt.Call{ID: "c1", Name: "read_file", Args: `{"path": "x"`}, pt.Call{ID: "c2", Name: "teleport", Args: `{}`}),
		pt.Text("I will fix my call."),
	)
	res := f.run(t, "go")
	if !res.Completed {
		t.Fatalf("result: %+v", res)
	}
	msgs := messages(t, f.srv, 1)
	n := len(msgs)
	bad, unknown := msgs[n-2], msgs[n-1]
	if bad["tool_call_id"] != "c1" || !strings.Contains(bad["content"].(string), "Invalid JSON") {
		t.Fatalf("bad JSON result: %v", bad)
	}
	if unknown["tool_call_id"] != "c2" || !strings.Contains(unknown["content"].(string), "does not exist") || !strings.Contains(unknown["content"].(string), "read_file") {
		t.Fatalf("unknown tool result: %v", unknown)
	}
}

func TestResultsInCallOrder(t *testing.T) {
	f := newFixture(t, nil)
	for _, n := range []string{"a.txt", "b.txt", "c.txt"} {
		_ = os.WriteFile(filepath.Join(f.dir, n), []byte(n), 0o644)
	}
	f.srv.Push(pt.ToolCalls(
		pt.Call{ID: "x3", Name: "read_file", Args: `{"path":"c.txt"}`},
		pt.Call{ID: "x1", Name: "read_file", Args: `{"path":"a.txt"}`},
		pt.Call{ID: "x2", Name: "read_file", Args: `{"path":"b.txt"}`},
	), pt.Text("ok"))
	f.run(t, "read")
	msgs := messages(t, f.srv, 1)
	ids := []any{msgs[len(msgs)-3]["tool_call_id"], msgs[len(msgs)-2]["tool_call_id"], msgs[len(msgs)-1]["tool_call_id"]}
	if args(ids) != `["x3","x1","x2"]` {
		t.Fatalf("results out of call order: %v", ids)
	}
}

func TestArgumentsReserializedSorted(t *testing.T) {
	f := newFixture(t, nil)
	_ = os.WriteFile(filepath.Join(f.dir, "a.txt"), []byte("a"), 0o644)
	f.srv.Push(pt.ToolCalls(pt.Call{Name: "read_file", Args: `{"path": "a.txt",  "limit": 5, "offset": 1}`}), pt.Text("ok"))
	f.run(t, "read")
	h := f.agent.History()
	if got := h[1].ToolCalls[0].Arguments; got != `{"limit":5,"offset":1,"path":"a.txt"}` {
		t.Fatalf("arguments not canonical: %s", got)
	}
}

func TestBudgetExhaustedAsksForSummary(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.MaxIterations = 2 })
	_ = os.WriteFile(filepath.Join(f.dir, "a.txt"), []byte("a"), 0o644)
	call := pt.Call{Name: "read_file", Args: `{"path":"a.txt"}`}
	f.srv.Push(pt.ToolCalls(call), pt.ToolCalls(call), pt.Text("Summary: I read a.txt twice."))
	res := f.run(t, "loop forever")
	if res.ExitReason.Kind != ExitBudgetExhausted || res.Completed || res.FinalResponse != "Summary: I read a.txt twice." {
		t.Fatalf("result: %+v", res)
	}
	reqs := f.srv.Requests()
	if len(reqs) != 3 || reqs[2]["tools"] != nil {
		t.Fatalf("summary call must be the third and carry no tools: %d requests, tools=%v", len(reqs), reqs[len(reqs)-1]["tools"])
	}
	msgs := messages(t, f.srv, 2)
	if !strings.Contains(msgs[len(msgs)-1]["content"].(string), "maximum number of tool-calling iterations") {
		t.Fatalf("summary request missing: %v", msgs[len(msgs)-1])
	}
}

func TestRetryAfterThenSuccess(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Push(
		pt.Error(429, `{"error":{"message":"Rate limit reached for gpt-4.1","type":"requests","param":null,"code":"rate_limit_exceeded"}}`, map[string]string{"retry-after-ms": "20"}),
		pt.Text("made it"),
	)
	res := f.run(t, "hi")
	if !res.Completed || res.FinalResponse != "made it" {
		t.Fatalf("result: %+v", res)
	}
	rs := ofType[*RetryScheduled](f.rec)
	if len(rs) != 1 || rs[0].Status != 429 || rs[0].Reason != "rate_limit" || rs[0].DelayMS != 20 || rs[0].Attempt != 2 || rs[0].MaxAttempts != 4 {
		t.Fatalf("retry.scheduled: %+v", rs)
	}
}

func TestRetriesExhausted(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.Retry.MaxRetries = 2 })
	for i := 0; i < 3; i++ {
		f.srv.Push(pt.Error(500, `{"error":{"message":"The server had an error while processing your request.","type":"server_error"}}`, nil))
	}
	res := f.run(t, "hi")
	if res.ExitReason.Kind != ExitRetriesExhausted || res.Completed || !strings.Contains(res.FinalResponse, "server had an error") || res.Explanation == "" {
		t.Fatalf("result: %+v", res)
	}
	if len(f.srv.Requests()) != 3 {
		t.Fatalf("want 3 attempts, got %d", len(f.srv.Requests()))
	}
}

func TestNotRetryableFailsAtOnce(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Push(pt.Error(401, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`, nil))
	res := f.run(t, "hi")
	if res.Completed || len(f.srv.Requests()) != 1 || !strings.Contains(res.FinalResponse, "Incorrect API key") {
		t.Fatalf("result: %+v, %d requests", res, len(f.srv.Requests()))
	}
}

func TestSecondRunIsRefused(t *testing.T) {
	f := newFixture(t, nil)
	hold := make(chan struct{})
	f.srv.Push(pt.Reply{Chunks: pt.TextChunks("slow answer", "stop"), Hold: hold})
	done := f.runAsync("first")
	<-f.srv.Started()
	if _, err := f.agent.Run(t.Context(), "second"); !errors.Is(err, ErrBusy) {
		t.Fatalf("second Run: %v", err)
	}
	close(hold)
	if res := await(t, done); !res.Completed {
		t.Fatalf("first turn: %+v", res)
	}
}

func TestLengthContinuationStitches(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Push(pt.Truncated("The answer is "), pt.Text("forty-two."))
	res := f.run(t, "q")
	if res.FinalResponse != "The answer is forty-two." || !res.Completed {
		t.Fatalf("result: %+v", res)
	}
	second := f.srv.Requests()[1]
	if second["max_tokens"] != float64(8192) {
		t.Fatalf("output cap not raised: %v", second["max_tokens"])
	}
	h := f.agent.History()
	if len(h) != 2 || h[1].Content != "The answer is forty-two." {
		t.Fatalf("scaffolding left in history: %+v", h)
	}
	if len(ofType[*BudgetRefunded](f.rec)) != 1 {
		t.Fatal("continuation restart not refunded")
	}
}
