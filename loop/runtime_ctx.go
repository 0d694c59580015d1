package loop

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"talaria/providers"
	"talaria/providers/ollama"
)

// runtimeContexts holds what each backend's server said about its runtime
// context (Ollama's num_ctx), by backendKey. A server that has none is
// remembered as such and never asked again; an Ollama server is asked
// again at the first call of each turn (a model may have been reloaded
// with another context in between). Safe for concurrent use.
type runtimeContexts struct {
	mu sync.Mutex
	by map[string]*runtimeEntry
	// refused is the explanation of the turn refused last.
	refused string
}

type runtimeEntry struct {
	rc   providers.RuntimeContext
	none bool // the server has no runtime context: never asked again
	turn int  // the turn that asked last (0: Agent.RuntimeContext)
}

// get returns the entry of key, nil when none.
func (r *runtimeContexts) get(key string) *runtimeEntry {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.by[key]
}

func (r *runtimeContexts) set(key string, e *runtimeEntry) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.by == nil {
		r.by = map[string]*runtimeEntry{}
	}
	r.by[key] = e
}

// known is the runtime context of backend b that counts: learnt from the
// server (not assumed), else false.
func (r *runtimeContexts) known(b providers.Backend) (providers.RuntimeContext, bool) {
	e := r.get(backendKey(b))
	if e == nil || e.none || e.rc.Assumed || e.rc.Tokens <= 0 {
		return providers.RuntimeContext{}, false
	}
	return e.rc, true
}

// learn asks the current backend's transport for its runtime context,
// unless this turn (turn > 0) already did or the server has none.
func (a *Agent) learnRuntime(ctx context.Context, turn int) {
	b := a.route.backend()
	key := backendKey(b)
	if e := a.rtc.get(key); e != nil && (e.none || (turn > 0 && e.turn == turn)) {
		return
	}
	tr, _, err := a.route.transport()
	if err != nil {
		return
	}
	rcer, ok := tr.(providers.RuntimeContexter)
	if !ok {
		a.rtc.set(key, &runtimeEntry{none: true})
		return
	}
	model := b.Model
	if model == "" {
		model = a.opts.Model
	}
	rc, ok, err := rcer.RuntimeContext(ctx, model)
	switch {
	case !ok:
		a.rtc.set(key, &runtimeEntry{none: true})
	case err != nil && rc.Tokens == 0:
		// The server did not answer this time: keep what it said before.
	default:
		if rc.Max > 0 && rc.Tokens > rc.Max {
			// Ollama clamps num_ctx to what the model was trained for.
			rc.Tokens, rc.Source = rc.Max, rc.Source+", capped at the model's maximum"
		}
		a.rtc.set(key, &runtimeEntry{rc: rc, turn: turn})
	}
}

// RuntimeWarning is the start-of-session warning for a runtime context
// below what tool use needs (Hermes's 64,000 tokens), naming the fix; ""
// when it is large enough.
func RuntimeWarning(rc providers.RuntimeContext, model string) string {
	if rc.Tokens <= 0 || rc.Tokens >= ollama.MinToolContext {
		return ""
	}
	assumed := ""
	if rc.Assumed {
		assumed = " (assumed: the server did not say)"
	}
	return fmt.Sprintf("%s runs %s with a %d-token context%s, below the %d tokens tool use needs: requests that do not fit are refused, not cut; set model.ollama_num_ctx: %d or OLLAMA_CONTEXT_LENGTH on the server",
		serverName(rc), model, rc.Tokens, assumed, ollama.MinToolContext, suggestedNumCtx(rc))
}

// runtimeFits refuses a request that the backend's runtime context cannot
// hold, after trying to compress the history under it: the request is
// not sent, the iteration is refunded and the turn ends with
// ExitOllamaContextTooSmall. It returns the request to send (rebuilt
// after a compression) and false when the turn must end.
func (t *turn) runtimeFits(req providers.Request) (providers.Request, bool) {
	b := t.a.route.backend()
	rc, ok := t.a.rtc.known(b)
	if !ok {
		return req, true
	}
	cs := &t.a.ctxs
	est := cs.tracker.Adjust(t.a.estimate(req))
	if est <= rc.Tokens {
		return req, true
	}
	if cs.enabled {
		if fit := t.fitTokens(cs.tracker.Ratio()); fit > 0 {
			res, err := t.a.compressHistory(t.ctx, false, "", fit, t)
			if err == nil && !res.Noop {
				req = t.request(true)
				cs.lastRaw = t.a.estimate(req)
				cs.lastEst = cs.tracker.Adjust(cs.lastRaw)
				if est = cs.lastEst; est <= rc.Tokens {
					return req, true
				}
			}
		}
	}
	t.refund(string(ExitOllamaContextTooSmall))
	t.exit = ExitOllamaContextTooSmall.Exit()
	t.final = fmt.Sprintf("Not sent: this request (about %d tokens) does not fit the %d-token runtime context %s runs %s with.",
		est, rc.Tokens, serverName(rc), t.model())
	t.a.rtc.mu.Lock()
	t.a.rtc.refused = runtimeExplanation(rc, est, t.model())
	t.a.rtc.mu.Unlock()
	return req, false
}

// explainRuntime is the explanation of ExitOllamaContextTooSmall.
func (t *turn) explainRuntime() string {
	t.a.rtc.mu.Lock()
	defer t.a.rtc.mu.Unlock()
	if t.a.rtc.refused != "" {
		return t.a.rtc.refused
	}
	return fmt.Sprintf("The request did not fit the runtime context of the Ollama server, so it was not sent. Set model.ollama_num_ctx: %d in config.yaml, or OLLAMA_CONTEXT_LENGTH on the server, or offer fewer tools.", ollama.SuggestedNumCtx)
}

// runtimeExplanation names both numbers, where the runtime context came
// from, and the three fixes.
func runtimeExplanation(rc providers.RuntimeContext, est int, model string) string {
	s := fmt.Sprintf("%s runs %s with a %d-token runtime context (from %s), but this request needs about %d tokens (messages and tool schemas), so it was not sent: Ollama would silently cut it and the model would lose its instructions and tools.",
		serverName(rc), model, rc.Tokens, rc.Source, est)
	if rc.Max > 0 && rc.Max < est {
		return s + fmt.Sprintf(" The model's own maximum is %d tokens, less than the request: run /compress, start a /new session, or offer fewer tools.", rc.Max)
	}
	if rc.Max > 0 {
		s += fmt.Sprintf(" The model itself takes up to %d tokens.", rc.Max)
	}
	return s + fmt.Sprintf(" Raise the runtime context: set model.ollama_num_ctx: %d in config.yaml (talaria then asks for it on every request, through Ollama's native /api/chat, the endpoint that honours it), or start the server with OLLAMA_CONTEXT_LENGTH=%d, or offer fewer tools. Tool use needs at least %d tokens.",
		suggestedNumCtx(rc), suggestedNumCtx(rc), ollama.MinToolContext)
}

// suggestedNumCtx is the num_ctx to suggest: 65536, or the model's own
// maximum when that is smaller.
func suggestedNumCtx(rc providers.RuntimeContext) int {
	if rc.Max > 0 && rc.Max < ollama.SuggestedNumCtx {
		return rc.Max
	}
	return ollama.SuggestedNumCtx
}

func serverName(rc providers.RuntimeContext) string {
	if rc.Server != "" {
		return rc.Server
	}
	return "Ollama"
}

// startProbe bounds what a session start waits for the runtime context: a
// model that must first be loaded is learnt at the first turn instead.
const startProbe = 3 * time.Second

// RuntimeAtStart asks the current backend's server for the runtime
// context it runs the model with (Ollama's num_ctx) and returns what a
// session shows at its start: the context window
// for the gauge (the runtime context the server reported, when it has
// one, capped as the turns cap it; else window) and notice with the
// warning of RuntimeWarning appended when the runtime context is below
// what tool use needs.
func (a *Agent) RuntimeAtStart(ctx context.Context, window int, notice string) (int, string) {
	ctx, cancel := context.WithTimeout(ctx, startProbe)
	defer cancel()
	a.learnRuntime(ctx, 0) // shared with the turns
	e := a.rtc.get(backendKey(a.route.backend()))
	if e == nil || e.none {
		return window, notice
	}
	if _, known := a.rtc.known(a.route.backend()); known {
		window = a.contextLength()
	}
	if w := RuntimeWarning(e.rc, a.opts.Model); w != "" {
		notice = strings.TrimPrefix(notice+"; "+w, "; ")
	}
	return window, notice
}
