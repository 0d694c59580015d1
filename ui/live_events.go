package ui

import (
	"fmt"
	"strings"

	"talaria/loop"
)

// The live panes' share of the turn's events: each method changes only
// the panes' state (and pushes the blocks it streams into the transcript
// it is given) and says what it made stale; the root model (events.go)
// routes the event here and keeps the session's figures.

// delta appends streamed text. It only marks the block dirty; the frame
// tick flushes it (see flush), so a burst of deltas renders once.
func (l *liveState) delta(tr *transcript, text string, reasoning bool) dirty {
	var d dirty
	if l.retry != nil {
		l.retry = nil
		d |= dirtyChrome
	}
	if reasoning {
		r, rd := l.thought(tr)
		r.write(text)
		d |= rd
		l.phase = phaseThinking
	} else {
		a, ad := l.answer(tr)
		a.write(text)
		d |= ad
		l.phase = phaseResponding
	}
	l.streamDirty = true
	return d
}

// complete replaces streamed text with the message's authoritative text
// and closes the streaming blocks.
func (l *liveState) complete(tr *transcript, e *loop.MessageCompleted) dirty {
	l.retry = nil
	if strings.TrimSpace(e.Reasoning) != "" {
		r, _ := l.thought(tr)
		r.set(e.Reasoning)
	}
	if r := l.reasoning; r != nil {
		r.streaming = false
		r.ver++
	}
	if strings.TrimSpace(e.Content) != "" {
		a, _ := l.answer(tr)
		a.set(e.Content)
		a.streaming = false
		a.ver++
	} else if a := l.stream; a != nil {
		tr.remove(a)
	}
	l.stream, l.reasoning = nil, nil
	l.streamDirty = false
	if len(e.ToolCalls) > 0 {
		l.phase = phaseTools
	}
	return dirtyTranscript | dirtyChrome
}

// iteration moves the budget gauge.
func (l *liveState) iteration(e *loop.IterationStarted) dirty {
	b := &l.budget
	b.iteration, b.used, b.max = e.Iteration, e.BudgetUsed, e.BudgetMax
	l.phase = phaseWaiting
	return dirtyChrome
}

// planned adds the batch card with every call queued.
func (l *liveState) planned(tr *transcript, e *loop.ToolsPlanned) dirty {
	b := &toolBatch{}
	for _, seg := range e.Segments {
		s := &toolSegment{mode: seg.Mode}
		for _, c := range seg.Calls {
			tc := &toolCall{id: c.ID, name: c.Name, args: c.Arguments}
			s.calls = append(s.calls, tc)
			l.calls[c.ID] = callRef{call: tc, batch: b}
		}
		b.segments = append(b.segments, s)
	}
	l.batch = b
	l.phase = phaseTools
	tr.push(b)
	return dirtyTranscript | dirtyChrome
}

// adHoc creates a one-call batch for a call no plan announced.
func (l *liveState) adHoc(tr *transcript, id, name, args string) callRef {
	c := &toolCall{id: id, name: name, args: args}
	b := &toolBatch{segments: []*toolSegment{{mode: "sequential", calls: []*toolCall{c}}}}
	ref := callRef{call: c, batch: b}
	l.calls[id] = ref
	tr.push(b)
	return ref
}

// retrying shows the retry pane; the root adds its line to the
// transcript and keeps the countdown ticking.
func (l *liveState) retrying(e *loop.RetryScheduled) dirty {
	deadline := e.TS.Time().Add(msDuration(e.DelayMS))
	l.retry = &retryState{ev: *e, deadline: deadline}
	l.phase = phaseRetrying
	return dirtyChrome
}

// guardrail keeps the last few guardrail events in the pane and marks the
// call it names.
func (l *liveState) guardrail(e *loop.Guardrail) dirty {
	const keep = 3
	d := dirtyChrome
	l.guards = append(l.guards, *e)
	if len(l.guards) > keep {
		l.guards = l.guards[len(l.guards)-keep:]
	}
	if ref, ok := l.calls[e.ID]; ok && e.ID != "" {
		ref.call.guard = fmt.Sprintf("%s: %s", e.Code, e.Message)
		ref.batch.ver++
		d |= dirtyTranscript
	}
	return d
}
