package loop

import (
	"context"
	"errors"
	"fmt"

	"talaria/loop/compress"
	"talaria/providers"
)

// contextState is the agent's token accounting and compression state.
type contextState struct {
	enabled   bool
	pct       float64
	tracker   compress.Tracker
	governor  compress.Governor
	summary   string // the latest summary, updated by the next pass
	passes    int
	lastEst   int // calibrated estimate of the last request sent
	lastRaw   int // its raw estimate, which the tracker calibrates
	overLimit bool
}

// snapshotter is a Store that can keep a compacted history for resume.
type snapshotter interface {
	SaveSnapshot(sessionID string, msgs []providers.Message) error
}

// ContextLength is the context window of the current backend.
func (a *Agent) contextLength() int {
	b := a.route.backend()
	return compress.ContextLength(b.Provider, b.Model, b.ContextLength)
}

func (a *Agent) threshold() int {
	return compress.Threshold(a.contextLength(), a.opts.MaxTokens, a.ctxs.pct)
}

// preflight compresses before a call when the calibrated estimate passes
// the threshold, or when the last response's real usage did. It reports
// whether the history changed (the request must then be rebuilt).
func (t *turn) preflight(req providers.Request) bool {
	cs := &t.a.ctxs
	cs.lastRaw = t.a.est.estimate(req.Messages, req.Tools)
	cs.lastEst = cs.tracker.Adjust(cs.lastRaw)
	if !cs.enabled || (cs.lastEst < t.a.threshold() && !cs.overLimit) {
		return false
	}
	cs.overLimit = false
	if ok, _ := cs.governor.Allow(t.a.opts.Now(), false); !ok {
		return false
	}
	res, err := t.compress(false, "")
	return err == nil && !res.Noop
}

// observeUsage corrects the estimate with what the provider reported.
func (t *turn) observeUsage(u providers.Usage) {
	cs := &t.a.ctxs
	actual := compress.PromptTokens(u)
	if actual == 0 || cs.lastRaw == 0 {
		return
	}
	cs.tracker.Observe(cs.lastRaw, actual)
	if cs.enabled && actual >= t.a.threshold() {
		cs.overLimit = true
	}
}

// compressOnOverflow handles a context_overflow / payload_too_large error:
// compress and retry with the iteration refunded (at most 3 per turn). It
// reports whether the call should be retried.
func (t *turn) compressOnOverflow(err error) bool {
	var ce *callError
	if !errors.As(err, &ce) || !ce.class.ShouldCompress {
		return false
	}
	if ok, _ := t.a.ctxs.governor.AllowOverflow(); !ok {
		return false
	}
	res, cerr := t.compress(false, "")
	if cerr != nil || res.Noop {
		return false
	}
	t.refund("compression")
	return true
}

// compress runs one pass over the history (not the system prompt) and
// replaces the in-memory history with the result. The store keeps the full
// log. manual is /compress.
func (t *turn) compress(manual bool, focus string) (compress.Result, error) {
	return t.a.compressHistory(t.ctx, manual, focus, t)
}

// compressHistory is shared by the turn and Agent.Compress (t may be nil).
func (a *Agent) compressHistory(ctx context.Context, manual bool, focus string, t *turn) (compress.Result, error) {
	cs := &a.ctxs
	tr, _, err := a.route.transport()
	if err != nil {
		return compress.Result{}, err
	}
	b := a.route.backend()
	now := a.opts.Now()
	opts := compress.Options{ContextLength: a.contextLength(), MaxTokens: a.opts.MaxTokens, Threshold: cs.pct, Now: now, Focus: focus}
	opts.SkipSummary = !manual && cs.governor.Cooling(now)
	a.mu.Lock()
	hist := append([]providers.Message(nil), a.history...)
	a.mu.Unlock()
	out, res, err := compress.Compress(ctx, tr, b.Model, hist, cs.summary, opts)
	cs.governor.Record(res.TokensBefore, res.TokensAfter, res.UsedFallback, res.SummaryFailed, now)
	if err != nil || res.Noop {
		return res, err
	}
	cs.passes++
	cs.summary = res.Summary
	a.mu.Lock()
	a.history = out
	a.mu.Unlock()
	// Everything before the pass was saved, so the compacted history can
	// stand in for the stored log on resume.
	if snap, ok := a.opts.Store.(snapshotter); ok {
		if err := snap.SaveSnapshot(a.opts.SessionID, withoutScaffolding(out)); err != nil && t != nil {
			t.addCleanup(fmt.Sprintf("saving the compaction snapshot: %v", err))
		}
	}
	a.mu.Lock()
	n := a.turns // a manual pass belongs to the last turn shown
	a.mu.Unlock()
	if t != nil {
		t.rebase(len(out))
		n = t.n
	}
	a.emit(n, &Compression{Pass: cs.passes, TokensBefore: res.TokensBefore, TokensAfter: res.TokensAfter})
	return res, nil
}

// rebase points the turn's indices into the compressed history: all of it
// counts as saved, and the turn starts at its newest real user message.
func (t *turn) rebase(n int) {
	t.saved = n
	t.a.mu.Lock()
	defer t.a.mu.Unlock()
	t.start = 0
	for i := len(t.a.history) - 1; i >= 0; i-- {
		m := &t.a.history[i]
		if m.Role == providers.RoleUser && !m.Flag(flagScaffold) && !compress.IsSummary(m) {
			t.start = i
			return
		}
	}
}

// Compress compresses the session's context now (/compress). It refuses
// while a turn runs.
func (a *Agent) Compress(ctx context.Context, focus string) error {
	a.mu.Lock()
	busy := a.cur != nil || a.compressing
	a.compressing = !busy
	a.mu.Unlock()
	if busy {
		return fmt.Errorf("a turn is running; /compress after it ends")
	}
	defer func() {
		a.mu.Lock()
		a.compressing = false
		a.mu.Unlock()
	}()
	res, err := a.compressHistory(ctx, true, focus, nil)
	if err == nil && res.Noop {
		return fmt.Errorf("nothing to compress yet")
	}
	return err
}

// withoutScaffolding drops this turn's scaffolding (continuation pieces,
// nudges), which must never be saved.
func withoutScaffolding(msgs []providers.Message) []providers.Message {
	out := make([]providers.Message, 0, len(msgs))
	for _, m := range msgs {
		if !m.Flag(flagScaffold) {
			out = append(out, m)
		}
	}
	return out
}
