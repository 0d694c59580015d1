package trace

import (
	"fmt"
	"math"
	"sync"
	"time"

	"talaria/loop"
)

// Timeline builds the span log of each turn from the loop's events, as a
// Sink in front of the real one. At each turn.finished the finished Log
// goes to every listener, after the event itself was passed on.
type Timeline struct {
	sessionID string
	listeners []func(*Log)

	mu sync.Mutex
	b  *builder // the turn being recorded, nil between turns
}

// NewTimeline returns a Timeline for one session; events of other sessions
// (subagents) are passed on unrecorded.
func NewTimeline(sessionID string, listeners ...func(*Log)) *Timeline {
	return &Timeline{sessionID: sessionID, listeners: listeners}
}

// Listen adds a listener for finished turns.
func (t *Timeline) Listen(fn func(*Log)) {
	t.mu.Lock()
	t.listeners = append(t.listeners, fn)
	t.mu.Unlock()
}

// Wrap returns a Sink that records events and passes them on to next.
func (t *Timeline) Wrap(next loop.Sink) loop.Sink {
	return func(e loop.Event) {
		// A finished turn's log is saved and exported before turn.finished
		// goes on: whoever sees the turn end (a UI about to quit, /timeline
		// right after it) finds the log stored.
		if done := t.Observe(e); done != nil {
			t.mu.Lock()
			ls := append(make([]func(*Log), 0, len(t.listeners)), t.listeners...)
			t.mu.Unlock()
			for _, fn := range ls {
				fn(done)
			}
		}
		if next != nil {
			next(e)
		}
	}
}

// Observe records one event; it returns the finished log at turn.finished.
func (t *Timeline) Observe(e loop.Event) *Log {
	h := e.Meta()
	if t.sessionID != "" && h.SessionID != "" && h.SessionID != t.sessionID {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if ts, ok := e.(*loop.TurnStarted); ok {
		t.b = newBuilder(t.sessionID, ts)
		return nil
	}
	if t.b == nil {
		if h.Turn == 0 {
			return nil
		}
		// A turn whose start we missed: record from here.
		t.b = newBuilder(t.sessionID, &loop.TurnStarted{Header: *h})
	}
	if fin, ok := e.(*loop.TurnFinished); ok {
		l := t.b.finish(fin)
		t.b = nil
		return l
	}
	t.b.add(e)
	return nil
}

// builder holds one turn's spans while it runs.
type builder struct {
	log      Log
	start    time.Time
	iter     int
	iterSpan int            // index of the open iteration span, -1 when none
	tools    map[string]int // call id → span index
	segs     map[int]int    // segment (from 1) → span index
	segSeen  map[int]bool   // segments with a finished call
}

func newBuilder(sessionID string, e *loop.TurnStarted) *builder {
	start := e.TS.Time()
	return &builder{
		log: Log{Version: LogVersion, SessionID: sessionID, Turn: e.Turn, Start: start,
			Input: clip(e.Input, 2000)},
		start: start, iterSpan: -1, tools: map[string]int{}, segs: map[int]int{}, segSeen: map[int]bool{},
	}
}

func (b *builder) off(t time.Time) float64 { return ms(t.Sub(b.start)) }

func (b *builder) push(s Span) int {
	b.log.Spans = append(b.log.Spans, s)
	return len(b.log.Spans) - 1
}

func (b *builder) closeIteration(at time.Time) {
	if b.iterSpan >= 0 {
		s := &b.log.Spans[b.iterSpan]
		s.DurMS = max(0, b.off(at)-s.StartMS)
		b.iterSpan = -1
	}
}

func (b *builder) add(e loop.Event) {
	at := e.Meta().TS.Time()
	switch e := e.(type) {
	case *loop.IterationStarted:
		b.closeIteration(at)
		b.iter = e.Iteration
		b.iterSpan = b.push(Span{Kind: KindIteration, Name: fmt.Sprintf("iteration %d", e.Iteration), StartMS: b.off(at), Iteration: e.Iteration})
	case *loop.APIAttempt:
		b.attempt(e, at)
	case *loop.RetryScheduled:
		b.push(Span{Kind: KindRetryWait, Name: "retry wait", StartMS: b.off(at), DurMS: float64(e.DelayMS), Iteration: b.iter,
			Attempt: e.Attempt, HTTPStatus: e.Status, Reason: e.Reason, Detail: fmt.Sprintf("attempt %d/%d", e.Attempt, e.MaxAttempts)})
	case *loop.FallbackActivated:
		b.push(Span{Kind: KindFallback, Name: "fallback", StartMS: b.off(at), Iteration: b.iter, Reason: e.Reason,
			Detail: e.From.Provider + "/" + e.From.Model + " → " + e.To.Provider + "/" + e.To.Model})
	case *loop.CredentialRotated:
		b.push(Span{Kind: KindRotation, Name: "credential rotated", StartMS: b.off(at), Iteration: b.iter, Provider: e.Provider, Reason: e.Reason})
	case *loop.ToolsPlanned:
		b.planned(e, at)
	case *loop.ApprovalWaited:
		st := "ok"
		if !e.Approved {
			st = "denied"
		}
		b.push(Span{Kind: KindApproval, Name: "approval " + e.Name, ID: e.ID, StartMS: b.off(e.StartedAt.Time()), DurMS: float64(e.DurationMS), Iteration: b.iter, Status: st})
	case *loop.ToolStarted:
		b.toolStarted(e, at)
	case *loop.ToolCompleted:
		b.toolCompleted(e, at)
	case *loop.SteerDelivered:
		b.push(Span{Kind: KindSteer, Name: "steer", StartMS: b.off(at), Iteration: e.Iteration, Detail: clip(e.Text, 80)})
	case *loop.Compression:
		b.push(Span{Kind: KindCompression, Name: fmt.Sprintf("compression %d", e.Pass), StartMS: b.off(at), Iteration: b.iter,
			Detail: fmt.Sprintf("%d → %d tokens", e.TokensBefore, e.TokensAfter)})
	case *loop.Guardrail:
		b.push(Span{Kind: KindGuardrail, Name: "guardrail " + e.Action, StartMS: b.off(at), Iteration: b.iter, Reason: e.Code, Detail: e.Tool})
	case *loop.CheckpointCreated:
		b.push(Span{Kind: KindCheckpoint, Name: "checkpoint", StartMS: b.off(at), Iteration: b.iter, Detail: e.Checkpoint})
	}
}

func (b *builder) attempt(e *loop.APIAttempt, end time.Time) {
	start := e.StartedAt.Time()
	s := Span{Kind: KindAttempt, Name: "chat " + e.Model, StartMS: b.off(start), DurMS: ms(end.Sub(start)), Iteration: b.iter,
		Attempt: e.Attempt, Provider: e.Provider, Model: e.Model, ResponseModel: e.ResponseModel, FinishReason: e.FinishReason,
		InputTokens: e.Usage.InputTokens, OutputTokens: e.Usage.OutputTokens, CacheTokens: e.Usage.CacheReadTokens + e.Usage.CacheWriteTokens,
		HTTPStatus: e.Status, Reason: e.Reason, Status: "ok"}
	if e.TTFTUS > 0 {
		s.TTFTMS = float64(e.TTFTUS) / 1000
	}
	switch {
	case e.Reason == "interrupted":
		s.Status = "cancelled"
	case !e.OK:
		s.Status = "error"
	}
	b.log.Attempts++
	b.push(s)
}

func (b *builder) planned(e *loop.ToolsPlanned, at time.Time) {
	for i, sg := range e.Segments {
		n := i + 1
		b.segSeen[n] = false
		b.segs[n] = b.push(Span{Kind: KindSegment, Name: fmt.Sprintf("segment %d (%s, %d)", n, sg.Mode, len(sg.Calls)),
			StartMS: b.off(at), Iteration: b.iter, Segment: n, Parallel: sg.Mode == "parallel"})
		for _, c := range sg.Calls {
			b.tools[c.ID] = b.push(Span{Kind: KindTool, Name: c.Name, ID: c.ID, StartMS: -1, Iteration: b.iter, Segment: n})
		}
	}
}

func (b *builder) tool(id, name string, seg int) *Span {
	i, ok := b.tools[id]
	if !ok {
		i = b.push(Span{Kind: KindTool, Name: name, ID: id, StartMS: -1, Iteration: b.iter, Segment: seg + 1})
		b.tools[id] = i
	}
	return &b.log.Spans[i]
}

func (b *builder) toolStarted(e *loop.ToolStarted, at time.Time) {
	s := b.tool(e.ID, e.Name, e.Segment)
	s.StartMS = b.off(at)
}

func (b *builder) toolCompleted(e *loop.ToolCompleted, at time.Time) {
	s := b.tool(e.ID, e.Name, e.Segment)
	end := b.off(at)
	if s.StartMS < 0 { // never started (skipped, denied): an instant
		s.StartMS = end
	}
	s.DurMS = max(0, end-s.StartMS)
	switch {
	case e.Cancelled:
		s.Status = "cancelled"
	case e.OK:
		s.Status = "ok"
	default:
		s.Status = "error"
	}
	if i, ok := b.segs[s.Segment]; ok {
		sg := &b.log.Spans[i]
		if !b.segSeen[s.Segment] {
			b.segSeen[s.Segment] = true
			sg.StartMS, sg.DurMS = s.StartMS, s.DurMS
			return
		}
		endMS := max(sg.End(), s.End())
		sg.StartMS = min(sg.StartMS, s.StartMS)
		sg.DurMS = endMS - sg.StartMS
	}
}

func (b *builder) finish(e *loop.TurnFinished) *Log {
	at := e.TS.Time()
	b.closeIteration(at)
	end := b.off(at)
	spans := b.log.Spans[:0]
	for _, s := range b.log.Spans {
		if s.StartMS < 0 { // planned, never ran, never completed
			continue
		}
		if s.Kind == KindRetryWait && s.End() > end { // cut short by the turn's end
			s.DurMS = max(0, end-s.StartMS)
		}
		s.StartMS, s.DurMS = round3(s.StartMS), round3(s.DurMS)
		spans = append(spans, s)
	}
	b.log.Spans = phases(spans, end)
	sortSpans(b.log.Spans)
	b.log.DurMS, b.log.ExitReason, b.log.Completed = round3(end), e.ExitReason.String(), e.Completed
	b.log.Output = clip(e.FinalResponse, 2000)
	l := b.log
	return &l
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// round3 rounds milliseconds to the microsecond.
func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

// phases adds the prologue and epilogue: the time before the first
// iteration and after the last iteration's last span, which ends the last
// iteration.
func phases(spans []Span, end float64) []Span {
	first, last := -1, -1
	for i, s := range spans {
		if s.Kind == KindIteration {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return spans
	}
	if p := spans[first].StartMS; p > 0 {
		spans = append(spans, Span{Kind: KindPhase, Name: "prologue", DurMS: p})
	}
	it := &spans[last]
	work := it.StartMS
	for _, s := range spans {
		if s.Iteration == it.Iteration && s.Kind != KindIteration && s.Kind != KindSteer {
			work = max(work, s.End())
		}
	}
	if work > it.StartMS && work < end {
		it.DurMS = round3(work - it.StartMS)
		spans = append(spans, Span{Kind: KindPhase, Name: "epilogue", StartMS: work, DurMS: round3(end - work)})
	}
	return spans
}
