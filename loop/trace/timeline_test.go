package trace_test

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

func (barrierRead) Name() string        { return "read_file" }
func (barrierRead) Description() string { return "read a file" }
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

// scriptedTurn runs one turn: a 429 with Retry-After, then a batch of
// three parallel reads (a steer arrives while they run), then the answer.
func scriptedTurn(t testing.TB, sinks ...func(loop.Event)) *trace.Log {
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

func TestTimelineOfAScriptedTurn(t *testing.T) {
	l := scriptedTurn(t)
	raw, err := l.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := trace.ParseLog(raw)
	if err != nil {
		t.Fatal(err)
	}
	var prev float64
	kinds := map[string][]trace.Span{}
	for i, s := range back.Spans {
		if s.StartMS < prev {
			t.Fatalf("span %d (%s) starts at %v, before the previous %v", i, s.Name, s.StartMS, prev)
		}
		if s.DurMS < 0 || s.End() > back.DurMS+0.001 {
			t.Fatalf("span %d (%s) [%v,%v] outside the turn (%v)", i, s.Name, s.StartMS, s.End(), back.DurMS)
		}
		prev = s.StartMS
		kinds[s.Kind] = append(kinds[s.Kind], s)
	}
	if n := len(kinds[trace.KindIteration]); n != 2 {
		t.Fatalf("%d iterations, want 2: %s", n, raw)
	}
	att := kinds[trace.KindAttempt]
	if len(att) != 3 || att[0].Status != "error" || att[0].HTTPStatus != 429 || att[0].Reason != string(providers.ReasonRateLimit) || att[1].Status != "ok" || att[1].Attempt != 2 {
		t.Fatalf("attempts: %+v", att)
	}
	for _, a := range att[1:] { // a tool-call answer and a text answer
		if a.TTFTMS <= 0 || a.TTFTMS > a.DurMS {
			t.Fatalf("time to first token %v of a %v attempt", a.TTFTMS, a.DurMS)
		}
	}
	if att[0].TTFTMS != 0 {
		t.Fatalf("a 429 with a time to first token: %+v", att[0])
	}
	waits := kinds[trace.KindRetryWait]
	if len(waits) != 1 || waits[0].Reason != string(providers.ReasonRateLimit) || waits[0].HTTPStatus != 429 ||
		waits[0].StartMS < att[0].End() || waits[0].End() > att[1].StartMS+0.001 {
		t.Fatalf("retry wait %+v between %+v and %+v", waits, att[0], att[1])
	}
	calls := kinds[trace.KindTool]
	if len(calls) != 3 {
		t.Fatalf("tool spans: %+v", calls)
	}
	// Parallel: every interval overlaps every other.
	for i := range calls {
		for j := range calls {
			if i != j && !(calls[i].StartMS < calls[j].End() && calls[j].StartMS < calls[i].End()) {
				t.Fatalf("calls %d and %d do not overlap: %+v %+v", i, j, calls[i], calls[j])
			}
		}
		if calls[i].Status != "ok" || calls[i].Segment != 1 {
			t.Fatalf("call %+v", calls[i])
		}
	}
	seg := kinds[trace.KindSegment]
	if len(seg) != 1 || !seg[0].Parallel || seg[0].StartMS > calls[0].StartMS || seg[0].End() < calls[2].End()-0.001 {
		t.Fatalf("segment %+v around %+v", seg, calls)
	}
	st := kinds[trace.KindSteer]
	if len(st) != 1 || st[0].Detail != "also check d.txt" || st[0].StartMS < seg[0].End() {
		t.Fatalf("steer %+v after the segment %+v", st, seg)
	}
	if back.ExitReason == "" || !back.Completed || back.Attempts != 3 {
		t.Fatalf("log header: %+v", back)
	}
}

// BenchmarkTimelineOverhead is the cost of recording the span log of a
// turn (the events of a 429 retry, three parallel tools and two
// iterations), against the wall time of that turn.
func BenchmarkTimelineOverhead(b *testing.B) {
	var evs []loop.Event
	l := scriptedTurn(b, func(e loop.Event) { evs = append(evs, e) })
	b.ResetTimer()
	for range b.N {
		tl := trace.NewTimeline("s1", func(*trace.Log) {})
		sink := tl.Wrap(func(loop.Event) {})
		for _, e := range evs {
			sink(e)
		}
	}
	perTurn := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	// Against this turn's own wall time (a local httptest provider and
	// instant tools: a real turn is far longer).
	b.ReportMetric(perTurn/(l.DurMS*1e6)*100, "%-of-turn")
	b.ReportMetric(float64(len(evs)), "events")
}
