package loop

import (
	"sync"

	"talaria/providers"
	"talaria/tools"
)

// resultSaver takes a batch's results as they complete, appends them to
// the history in call order (each as soon as every call before it is
// done) and commits them in the background, so a killed process keeps
// every result that was ready. Commits coalesce: while one is written,
// the results that complete meanwhile wait for the next.
type resultSaver struct {
	t     *turn
	calls []providers.ToolCall
	batch []tools.BatchCall
	run   *batchRun

	mu   sync.Mutex
	done []*tools.CallResult
	next int // results[:next] are in the history

	kick    chan struct{}
	stopped chan struct{}
}

func (t *turn) newResultSaver(calls []providers.ToolCall, batch []tools.BatchCall, run *batchRun) *resultSaver {
	s := &resultSaver{t: t, calls: calls, batch: batch, run: run, done: make([]*tools.CallResult, len(calls)),
		kick: make(chan struct{}, 1), stopped: make(chan struct{})}
	go s.flusher()
	return s
}

// flusher commits what was appended, once per kick, until kick closes.
// The batch's last result is left to the loop's next commit, after a
// pending steer has joined it (the saved session shows what the model saw).
func (s *resultSaver) flusher() {
	defer close(s.stopped)
	for range s.kick {
		s.mu.Lock()
		hold := 0
		if s.next == len(s.done) {
			hold = 1
		}
		s.t.flushBut(hold)
		s.mu.Unlock()
	}
}

// complete takes one call's final result; it is called on worker
// goroutines (the executor's OnDone).
func (s *resultSaver) complete(r tools.CallResult) {
	if s == nil {
		return
	}
	s.mu.Lock()
	if r.Index < 0 || r.Index >= len(s.done) || s.done[r.Index] != nil {
		s.mu.Unlock()
		return
	}
	s.done[r.Index] = &r
	advanced := false
	for s.next < len(s.done) && s.done[s.next] != nil {
		s.t.recordResult(s.calls, s.batch, *s.done[s.next], s.run)
		s.next++
		advanced = true
	}
	s.mu.Unlock()
	if advanced {
		select {
		case s.kick <- struct{}{}:
		default: // a commit is already due; it takes these too
		}
	}
}

// finish takes the results the hooks did not report and stops the
// flusher; the last result is committed by the loop before the next call.
func (s *resultSaver) finish(results []tools.CallResult) {
	for _, r := range results {
		s.complete(r)
	}
	close(s.kick)
	<-s.stopped
}

// recordResult applies the guardrail's view of one result and appends its
// tool message.
func (t *turn) recordResult(calls []providers.ToolCall, batch []tools.BatchCall, r tools.CallResult, run *batchRun) {
	out := t.guardResult(r, batch[r.Index].Arguments, run)
	msg := toolResult(calls[r.Index], out)
	msg.Images = r.Result.Images
	if r.Result.IsError {
		msg.SetFlag(providers.FlagToolError, true)
	}
	msg.ToolStatus = callStatus(r, run.wasDenied(r.ID))
	t.append(msg)
}
