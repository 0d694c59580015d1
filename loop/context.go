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
	// stated holds the context windows providers stated in overflow
	// errors this session, by provider/model; they win over configured
	// or built-in lengths.
	stated map[string]int
	// overflowTurn and overflowRetries count the overflow recoveries of
	// the current turn (at most maxOverflowRetries).
	overflowTurn    int
	overflowRetries int
}

// maxOverflowRetries bounds the compress-and-retry recoveries from a
// context overflow within one turn.
const maxOverflowRetries = 3

// maxFitRatio bounds the calibration taken from one stated request size
// (the provider's own count of the request we estimated).
const maxFitRatio = 16.0

// fitMargin is the share of the window an overflow recovery aims for:
// the estimate is calibrated, not exact.
const fitMargin = 0.9

// backendKey names a backend in contextState.stated.
func backendKey(b providers.Backend) string { return b.Provider + "/" + b.Model }

// snapshotter is a Store that can keep a compacted history for resume.
type snapshotter interface {
	SaveSnapshot(sessionID string, msgs []providers.Message) error
}

// ContextLength is the context window of the current backend.
// A runtime context the server reported (Ollama's num_ctx) stands in
// for the built-in guess: it is what the server holds (capped by the
// model's own maximum and by model.context_length when set).
func (a *Agent) contextLength() int {
	b := a.route.backend()
	if s := a.ctxs.stated[backendKey(b)]; s > 0 {
		return s // the provider's own word wins over any guess or setting
	}
	rc, ok := a.rtc.known(b)
	if !ok {
		return compress.ContextLength(b.Provider, b.Model, b.ContextLength)
	}
	n := rc.Tokens
	if rc.Max > 0 && rc.Max < n {
		n = rc.Max
	}
	if b.ContextLength > 0 && b.ContextLength < n {
		n = b.ContextLength
	}
	return n
}

func (a *Agent) threshold() int {
	return compress.Threshold(a.contextLength(), a.opts.MaxTokens, a.ctxs.pct)
}

// preflight compresses before a call when the calibrated estimate passes
// the threshold, or when the last response's real usage did. It reports
// whether the history changed (the request must then be rebuilt).
//
// It first learns the backend's runtime context, once a turn (see
// runtimeContexts), so that the threshold is that of the context the
// server runs the model with.
func (t *turn) preflight(req providers.Request) bool {
	t.a.learnRuntime(t.ctx, t.n)
	cs := &t.a.ctxs
	cs.lastRaw = t.a.estimate(req)
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
// it remembers the window the provider stated (for the session) and
// calibrates the estimate with the request size it stated, compresses the
// history to fit that window and retries with the iteration refunded, at
// most maxOverflowRetries times per turn. It reports whether the call
// should be retried; when it cannot, callFailed ends the turn with
// ExitContextOverflow.
func (t *turn) compressOnOverflow(err error) bool {
	var ce *callError
	if !errors.As(err, &ce) || !ce.class.ShouldCompress {
		return false
	}
	cs := &t.a.ctxs
	if cs.overflowTurn != t.n {
		cs.overflowTurn, cs.overflowRetries = t.n, 0
	}
	if lim := ce.class.ContextLimit; lim > 0 {
		if cs.stated == nil {
			cs.stated = map[string]int{}
		}
		cs.stated[backendKey(t.a.route.backend())] = lim
	}
	// The request size the provider stated is the surest calibration of
	// this very request: never aim above it.
	ratio := cs.tracker.Ratio()
	if p := ce.class.PromptTokens; p > 0 && cs.lastRaw > 0 {
		cs.tracker.Observe(cs.lastRaw, p)
		ratio = max(ratio, min(float64(p)/float64(cs.lastRaw), maxFitRatio))
	}
	if cs.overflowRetries >= maxOverflowRetries {
		return false
	}
	cs.overflowRetries++
	fit := t.fitTokens(ratio)
	if fit <= 0 {
		return false
	}
	res, cerr := t.a.compressHistory(t.ctx, false, "", fit, t)
	if cerr == nil && res.Noop && res.Fits {
		// By our estimate it already fitted, yet the provider refused it:
		// the estimate runs low for this content. Aim at half.
		res, cerr = t.a.compressHistory(t.ctx, false, "", fit/2, t)
	}
	if cerr != nil || res.Noop || !res.Fits {
		return false
	}
	t.refund("compression")
	return true
}

// fitTokens is the raw estimate the history must stay under for the next
// request to fit the window: the window (less the output cap) scaled by
// the calibration ratio (real tokens per estimated one) and fitMargin,
// less the system prompt and the tool schemas.
func (t *turn) fitTokens(ratio float64) int {
	if ratio <= 0 {
		ratio = 1
	}
	window := compress.Window(t.a.contextLength(), t.maxTokens)
	overhead := compress.MessageOverhead + compress.EstimateText(t.sysPrompt) + compress.Estimate(nil, t.a.toolSpecs())
	return int(float64(window)*fitMargin/ratio) - overhead
}

// contextOverflowed ends the turn when the request stayed over the
// model's window: it reports whether err was such an overflow.
func (t *turn) contextOverflowed(err error) bool {
	var ce *callError
	if !errors.As(err, &ce) || !ce.class.ShouldCompress {
		return false
	}
	t.exit = ExitContextOverflow.Exit()
	t.final = "The conversation no longer fits the model's context window (" + t.windowText() + "), even after compression. " +
		"Run /compress (optionally with a focus) to summarise it harder, or /new to start a fresh session."
	return true
}

// overflowExplanation explains ExitContextOverflow.
func (t *turn) overflowExplanation() string {
	return "The conversation is over the model's context window (" + t.windowText() + "): compression could not bring the request under it. " +
		"Use /compress to summarise the session, /new to start over, or a model with a larger window. Cause: " + errText(t.lastErr)
}

// windowText names the window in force, noting when the provider stated it.
func (t *turn) windowText() string {
	b := t.a.route.backend()
	n := t.a.contextLength()
	if t.a.ctxs.stated[backendKey(b)] == n {
		return fmt.Sprintf("%d tokens, as %s stated", n, b.Provider)
	}
	return fmt.Sprintf("about %d tokens", n)
}

// compress runs one pass over the history (not the system prompt) and
// replaces the in-memory history with the result. The store keeps the full
// log. manual is /compress.
func (t *turn) compress(manual bool, focus string) (compress.Result, error) {
	return t.a.compressHistory(t.ctx, manual, focus, 0, t)
}

// compressHistory is shared by the turn and Agent.Compress (t may be nil).
// fit, when positive, is the size the history must fit (an overflow
// recovery; see compress.Options.FitTokens).
func (a *Agent) compressHistory(ctx context.Context, manual bool, focus string, fit int, t *turn) (compress.Result, error) {
	cs := &a.ctxs
	if pre := a.opts.Hooks.PreCompact; pre != nil && fit == 0 && preCompactBlocks(ctx, pre, manual) {
		if manual {
			return compress.Result{}, errors.New("a PreCompact hook blocked the compression")
		}
		return compress.Result{Noop: true}, nil
	}
	tr, _, err := a.route.transport()
	if err != nil {
		return compress.Result{}, err
	}
	b := a.route.backend()
	now := a.opts.Now()
	opts := compress.Options{ContextLength: a.contextLength(), MaxTokens: a.opts.MaxTokens, Threshold: cs.pct, Now: now, Focus: focus, FitTokens: fit}
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
	a.reqs.changed()
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
	if err := a.loadHistory(); err != nil {
		return err
	}
	res, err := a.compressHistory(ctx, true, focus, 0, nil)
	if err == nil && res.Noop {
		return fmt.Errorf("%w: %s", ErrNothingToCompress, a.noopReason())
	}
	return err
}

// ErrNothingToCompress is a /compress that found nothing to summarise;
// the error's text says why and what a compression would need.
var ErrNothingToCompress = errors.New("nothing to compress yet")

// noopReason says why /compress found nothing to do, with the options
// compressHistory uses.
func (a *Agent) noopReason() string {
	a.mu.Lock()
	hist := append([]providers.Message(nil), a.history...)
	a.mu.Unlock()
	return compress.NoopReason(hist, compress.Options{ContextLength: a.contextLength(), MaxTokens: a.opts.MaxTokens, Threshold: a.ctxs.pct})
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
