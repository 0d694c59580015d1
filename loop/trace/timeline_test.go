package trace_test

import (
	"testing"

	"talaria/loop"
	"talaria/loop/trace"
	"talaria/loop/trace/tracetest"
	"talaria/providers"
)

func TestTimelineOfAScriptedTurn(t *testing.T) {
	l := tracetest.ScriptedTurn(t)
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
	l := tracetest.ScriptedTurn(b, func(e loop.Event) { evs = append(evs, e) })
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
