package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"talaria/loop/trace"
)

// goldenLog is a turn with a 429 and its Retry-After wait, a parallel
// batch of three reads, an approval wait, a steer and a final answer.
func goldenLog() *trace.Log {
	return &trace.Log{Version: 1, SessionID: "0a1b2c3d4e5f", Turn: 2, DurMS: 6200, ExitReason: "text_response(finish_reason=stop)", Completed: true, Attempts: 3,
		Spans: []trace.Span{
			{Kind: trace.KindPhase, Name: "prologue", StartMS: 0, DurMS: 40},
			{Kind: trace.KindIteration, Name: "iteration 1", StartMS: 40, DurMS: 4260, Iteration: 1},
			{Kind: trace.KindAttempt, Name: "chat gpt-4.1", StartMS: 45, DurMS: 270, Iteration: 1, Attempt: 1, Provider: "openai", Model: "gpt-4.1", Status: "error", HTTPStatus: 429, Reason: "rate_limit"},
			{Kind: trace.KindRetryWait, Name: "retry wait", StartMS: 320, DurMS: 2000, Iteration: 1, Attempt: 2, HTTPStatus: 429, Reason: "rate_limit"},
			{Kind: trace.KindAttempt, Name: "chat gpt-4.1", StartMS: 2330, DurMS: 900, Iteration: 1, Attempt: 2, Provider: "openai", Model: "gpt-4.1", Status: "ok", TTFTMS: 420, InputTokens: 1200, OutputTokens: 80},
			{Kind: trace.KindSegment, Name: "segment 1 (parallel, 3)", StartMS: 3240, DurMS: 1000, Iteration: 1, Segment: 1, Parallel: true},
			{Kind: trace.KindTool, Name: "read_file", ID: "c1", StartMS: 3240, DurMS: 600, Iteration: 1, Segment: 1, Status: "ok"},
			{Kind: trace.KindTool, Name: "read_file", ID: "c2", StartMS: 3245, DurMS: 1000, Iteration: 1, Segment: 1, Status: "ok"},
			{Kind: trace.KindTool, Name: "search_files", ID: "c3", StartMS: 3250, DurMS: 300, Iteration: 1, Segment: 1, Status: "error"},
			{Kind: trace.KindApproval, Name: "approval write_file", ID: "c4", StartMS: 4250, DurMS: 50, Iteration: 1, Status: "denied"},
			{Kind: trace.KindSteer, Name: "steer", StartMS: 4300, Iteration: 2, Detail: "also run go vet"},
			{Kind: trace.KindIteration, Name: "iteration 2", StartMS: 4300, DurMS: 1890, Iteration: 2},
			{Kind: trace.KindAttempt, Name: "chat gpt-4.1", StartMS: 4310, DurMS: 1880, Iteration: 2, Attempt: 1, Provider: "openai", Model: "gpt-4.1", Status: "ok", TTFTMS: 600},
			{Kind: trace.KindPhase, Name: "epilogue", StartMS: 6190, DurMS: 10},
		}}
}

func TestGoldenTimeline(t *testing.T) {
	for _, w := range []int{80, 120} {
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			h := newHarness(t)
			h.size(w, 40)
			item := &timelineItem{log: goldenLog()}
			lines := item.render(h.m.renderCtx())
			for i, l := range lines {
				if n := len([]rune(plain(l))); n > w {
					t.Fatalf("line %d is %d columns wide at %d: %q", i, n, w, plain(l))
				}
			}
			golden(t, strings.Join(lines, "\n"))
		})
	}
}

// TestTimelineBarsOverlapForParallelCalls reads the drawn bars back: the
// three calls of the parallel segment share columns, the wait lies between
// the two attempts, at every width from 60 up.
func TestTimelineBarsOverlapForParallelCalls(t *testing.T) {
	for _, w := range []int{60, 61, 80, 99, 120, 200} {
		h := newHarness(t)
		h.size(w, 40)
		lines := (&timelineItem{log: goldenLog()}).render(h.m.renderCtx())
		span := func(label string) (int, int) {
			for _, l := range lines {
				p := []rune(plain(l))
				if strings.HasPrefix(strings.TrimSpace(string(p)), label) {
					first, last := -1, -1
					for i, r := range p {
						if r == '█' || r == '░' || r == '▒' {
							if first < 0 {
								first = i
							}
							last = i
						}
					}
					return first, last
				}
			}
			t.Fatalf("no row %q at %d:\n%s", label, w, plain(strings.Join(lines, "\n")))
			return 0, 0
		}
		a1, a2 := span("read_file")
		s1, s2 := span("search_files")
		if a1 < 0 || s1 < 0 || s1 > a2 || a1 > s2 {
			t.Fatalf("parallel calls do not overlap at %d: [%d,%d] [%d,%d]", w, a1, a2, s1, s2)
		}
		w1, w2 := span("wait rate_limit")
		c1, _ := span("chat #1 429 · gpt-4.1")
		c2, _ := span("chat #2 · gpt-4.1")
		if !(c1 <= w1 && w2 <= c2) {
			t.Fatalf("the wait [%d,%d] is not between the attempts at %d and %d (width %d)", w1, w2, c1, c2, w)
		}
		for i, l := range lines {
			if n := len([]rune(plain(l))); n > w {
				t.Fatalf("line %d is %d columns wide at %d", i, n, w)
			}
		}
	}
}

func TestTimelineCommand(t *testing.T) {
	var asked []int
	h := newHarness(t, func(o *Options) {
		fake(o).OnTimeline = func(_ context.Context, turn int) (*trace.Log, error) {
			asked = append(asked, turn)
			if turn == 9 {
				return nil, errors.New("no timeline for turn 9 (recorded turns: 1, 2)")
			}
			return goldenLog(), nil
		}
	})
	h.size(100, 40)
	h.command("/timeline")
	contains(t, h.screen(), "⏱ turn 2", "wait rate_limit", "segment 1 ∥")
	h.command("/timeline 9")
	contains(t, h.screen(), "no timeline for turn 9")
	h.command("/timeline two")
	contains(t, h.screen(), "usage: /timeline [TURN]")
	if fmt.Sprint(asked) != "[0 9]" {
		t.Fatalf("asked for turns %v", asked)
	}
}
