package providers

import (
	"strings"
	"sync"
	"time"
)

// Backend is one configured provider/model: the primary (model.*) or an
// entry of fallback_providers.
type Backend struct {
	Provider string
	Model    string
	BaseURL  string
	APIMode  string
	// APIKeys is the credential pool of this backend, in order.
	APIKeys       []string
	MaxTokens     int
	ContextLength int
	// ReasoningEffort is model.reasoning_effort: "" (off), low, medium or
	// high; sent as Request.ReasoningEffort.
	ReasoningEffort string
	// KeyEnvs names the environment variables the keys came from, for
	// error messages ("the API key in OPENAI_API_KEY").
	KeyEnvs []string
	// OllamaNumCtx is model.ollama_num_ctx: the runtime context asked of
	// an Ollama server on every request (0: the server's own).
	OllamaNumCtx int
}

// sameBackend reports whether a and b reach the same model at the same
// place: equal provider (case-insensitive), model and base URL (ignoring a
// trailing slash).
func sameBackend(a, b Backend) bool {
	return strings.EqualFold(a.Provider, b.Provider) && a.Model == b.Model &&
		strings.TrimRight(a.BaseURL, "/") == strings.TrimRight(b.BaseURL, "/")
}

// FallbackChain is the primary backend followed by the fallbacks, each with
// its own CredentialPool. Fallback is turn-scoped: Reset restores the
// primary at each new turn, while the pools keep their exhausted and dead
// keys across turns. It is safe for concurrent use.
type FallbackChain struct {
	mu        sync.Mutex
	now       func() time.Time
	entries   []Backend
	pools     []*CredentialPool
	idx       int
	coolUntil time.Time
}

// NewFallbackChain returns a chain over primary and fallbacks. Fallbacks
// equal to the primary or to an earlier fallback (same provider, model and
// base_url) and entries naming neither provider nor model are skipped.
func NewFallbackChain(primary Backend, fallbacks []Backend) *FallbackChain {
	c := &FallbackChain{now: time.Now}
	c.entries = append(c.entries, primary)
outer:
	for _, fb := range fallbacks {
		if fb.Provider == "" && fb.Model == "" {
			continue
		}
		for _, have := range c.entries {
			if sameBackend(have, fb) {
				continue outer
			}
		}
		c.entries = append(c.entries, fb)
	}
	for _, b := range c.entries {
		c.pools = append(c.pools, NewCredentialPool(b.Provider, b.APIKeys, c.clock))
	}
	return c
}

// clock reads the chain's clock (used by the pools too).
func (c *FallbackChain) clock() time.Time {
	c.mu.Lock()
	now := c.now
	c.mu.Unlock()
	return now()
}

// WithClock makes the chain and its pools read time from now (tests, and
// a loop with an injected clock). It returns c.
func (c *FallbackChain) WithClock(now func() time.Time) *FallbackChain {
	if now == nil {
		now = time.Now
	}
	c.mu.Lock()
	c.now = now
	c.mu.Unlock()
	return c
}

// Len returns the number of backends, the primary included.
func (c *FallbackChain) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// Backends returns the de-duplicated chain, the primary first.
func (c *FallbackChain) Backends() []Backend {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Backend(nil), c.entries...)
}

// Primary returns the configured primary backend.
func (c *FallbackChain) Primary() Backend {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.entries[0]
}

// Current returns the backend in use.
func (c *FallbackChain) Current() Backend {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.entries[c.idx]
}

// Index returns the position of the backend in use (0 = primary).
func (c *FallbackChain) Index() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.idx
}

// Pool returns the credential pool of the backend in use.
func (c *FallbackChain) Pool() *CredentialPool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pools[c.idx]
}

// RequireReasoning turns reasoning on (at effort) for the backend in use
// when it has none configured, for the rest of the session: the model
// refused a request without it (reasoning_mandatory). It returns the
// effort now in force.
func (c *FallbackChain) RequireReasoning(effort string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	b := &c.entries[c.idx]
	if b.ReasoningEffort == "" {
		b.ReasoningEffort = effort
	}
	return b.ReasoningEffort
}

// Active reports whether a fallback (not the primary) is in use.
func (c *FallbackChain) Active() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.idx > 0
}

// Advance moves to the next fallback whose credentials are usable and
// returns it. It returns the current backend and false when the chain is
// exhausted or cooling down; the caller then calls Cooldown so the next
// turns do not hammer it.
func (c *FallbackChain) Advance() (Backend, bool) {
	c.mu.Lock()
	now := c.now()
	if now.Before(c.coolUntil) {
		b := c.entries[c.idx]
		c.mu.Unlock()
		return b, false
	}
	start, n := c.idx, len(c.entries)
	pools := c.pools
	c.mu.Unlock()
	// Pools are asked without holding the chain lock (they read its clock).
	for j := start + 1; j < n; j++ {
		if _, ok := pools[j].Current(); !ok {
			continue
		}
		c.mu.Lock()
		if c.idx != start { // another goroutine advanced meanwhile
			b := c.entries[c.idx]
			c.mu.Unlock()
			return b, true
		}
		c.idx = j
		b := c.entries[j]
		c.mu.Unlock()
		return b, true
	}
	return c.Current(), false
}

// Cooldown stops Advance from moving for d from now (the chain's clock).
func (c *FallbackChain) Cooldown(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.coolUntil = c.now().Add(d)
}

// InCooldown reports whether now falls inside a Cooldown.
func (c *FallbackChain) InCooldown(now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return now.Before(c.coolUntil)
}

// Reset restores the primary (call it at each new turn) and starts a new
// turn in every pool (CredentialPool.BeginTurn). A cooldown stays.
func (c *FallbackChain) Reset() {
	c.mu.Lock()
	c.idx = 0
	pools := c.pools
	c.mu.Unlock()
	for _, p := range pools {
		p.BeginTurn()
	}
}

// ShouldFallbackNow decides the eager fallback of reference/hermes.md §4
// after an error classified as c, with retryCount retries already made on
// this backend and poolCanRotate telling whether the credential pool just
// rotated (or can rotate) to another key:
//   - upstream_rate_limit: always (the key is fine, the upstream is not);
//   - rate_limit, billing, auth, auth_permanent: unless the pool can rotate;
//   - timeout, overloaded: once retryCount ≥ 2;
//   - other non-retryable errors marked ShouldFallback (model_not_found,
//     format_error, …): at once;
//   - never for reasons without ShouldFallback: context_overflow and
//     payload_too_large (compress instead), content_policy_blocked (its own
//     exit), local_error, interrupted, ssl_cert_verification, ….
//
// Retryable errors that get no eager fallback (server_error, unknown) fall
// back once retries are exhausted, if c.ShouldFallback.
func ShouldFallbackNow(c Classified, retryCount int, poolCanRotate bool) bool {
	if !c.ShouldFallback {
		return false
	}
	switch c.Reason {
	case ReasonUpstreamRateLimit:
		return true
	case ReasonRateLimit, ReasonBilling, ReasonAuth, ReasonAuthPermanent:
		return !poolCanRotate
	case ReasonTimeout, ReasonOverloaded, ReasonConnectionRefused:
		return retryCount >= 2
	}
	return !c.Retryable
}

// RewriteRuntimeLines rewrites the trailing "Model: …" and "Provider: …"
// lines of a system prompt (in either order, as its last two lines, a
// trailing newline allowed) to name model and provider. A prompt that
// does not end with both lines is returned unchanged.
func RewriteRuntimeLines(prompt, provider, model string) string {
	body := strings.TrimRight(prompt, "\r\n")
	tail := prompt[len(body):]
	last := strings.LastIndexByte(body, '\n')
	if last < 0 {
		return prompt
	}
	prev := strings.LastIndexByte(body[:last], '\n') // -1: the pair is the whole prompt
	l1 := strings.TrimSuffix(body[prev+1:last], "\r")
	l2 := body[last+1:]
	oneLine := func(s string) string {
		return strings.Join(strings.Fields(s), " ")
	}
	var a, b string
	switch {
	case strings.HasPrefix(l1, "Model:") && strings.HasPrefix(l2, "Provider:"):
		a, b = "Model: "+oneLine(model), "Provider: "+oneLine(provider)
	case strings.HasPrefix(l1, "Provider:") && strings.HasPrefix(l2, "Model:"):
		a, b = "Provider: "+oneLine(provider), "Model: "+oneLine(model)
	default:
		return prompt
	}
	eol := "\n"
	if strings.HasSuffix(body[:last], "\r") {
		eol = "\r\n"
	}
	return body[:prev+1] + a + eol + b + tail
}
