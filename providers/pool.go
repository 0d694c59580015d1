package providers

import (
	"sync"
	"time"
)

// Default cooldowns of a key marked exhausted when the server named no
// reset time.
const (
	// RateLimitCooldown is how long a rate-limited key rests.
	RateLimitCooldown = 60 * time.Second
	// BillingCooldown is how long a key out of credits rests.
	BillingCooldown = time.Hour
	// AuthCooldown is how long a key refused once (401/403) rests before
	// its one second chance; a second refusal marks it dead.
	AuthCooldown = 5 * time.Minute
)

// Key states reported by CredentialPool.Keys.
const (
	KeyOK        = "ok"
	KeyExhausted = "exhausted"
	KeyDead      = "dead"
)

// KeyState is a snapshot of one pooled credential, for display. It never
// holds the key itself.
type KeyState struct {
	// Index is the key's position in the configured list.
	Index int
	// Hint is the key's last four characters ("…wjh3").
	Hint string
	// State is KeyOK, KeyExhausted or KeyDead.
	State string
	// Until is when an exhausted key comes back (zero otherwise).
	Until time.Time
	// Reason is the failover reason that took the key out.
	Reason FailoverReason
	// Current marks the key in use.
	Current bool
}

// poolKey is the mutable state of one credential.
type poolKey struct {
	key    string
	dead   bool
	until  time.Time // exhausted until; zero when fine
	reason FailoverReason
	// authStrikes counts auth refusals; the second one kills the key.
	authStrikes int
	// turnFailures counts failures reported this turn.
	turnFailures int
}

// CredentialPool rotates one provider's API keys (model.api_keys_env):
// keys are used in order; a key that fails for rate limit, billing or auth
// rests (exhausted) or is dropped (dead) and the pool moves on. Exhausted
// keys come back after their reset time, at most once per turn. It is safe
// for concurrent use.
type CredentialPool struct {
	mu       sync.Mutex
	provider string
	now      func() time.Time
	keys     []poolKey
	cur      int
}

// NewCredentialPool returns a pool over keys (empty and duplicate keys are
// dropped) for provider. now is the clock; nil means time.Now.
func NewCredentialPool(provider string, keys []string, now func() time.Time) *CredentialPool {
	if now == nil {
		now = time.Now
	}
	p := &CredentialPool{provider: provider, now: now}
	seen := map[string]bool{}
	for _, k := range keys {
		if k == "" || seen[k] {
			continue
		}
		seen[k] = true
		p.keys = append(p.keys, poolKey{key: k})
	}
	return p
}

// Provider returns the provider the keys belong to.
func (p *CredentialPool) Provider() string { return p.provider }

// Len returns the number of distinct keys.
func (p *CredentialPool) Len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.keys)
}

// usable reports whether key i may be used at now: not dead, and either
// never exhausted or past its reset time with at most one failure this
// turn (a key that comes back and fails again sits out the turn).
func (p *CredentialPool) usable(i int, now time.Time) bool {
	k := &p.keys[i]
	if k.dead {
		return false
	}
	if k.until.IsZero() {
		return true
	}
	return !now.Before(k.until) && k.turnFailures <= 1
}

// Current returns the key to use. A pool without keys (a local server)
// returns "", true. ok is false when every key is exhausted or dead.
func (p *CredentialPool) Current() (key string, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.keys) == 0 {
		return "", true
	}
	i, ok := p.pick(p.cur, p.now())
	if !ok {
		return "", false
	}
	p.cur = i
	return p.keys[i].key, true
}

// pick finds the first usable key at or after start, cyclically.
func (p *CredentialPool) pick(start int, now time.Time) (int, bool) {
	for n := 0; n < len(p.keys); n++ {
		i := (start + n) % len(p.keys)
		if p.usable(i, now) {
			return i, true
		}
	}
	return 0, false
}

// Report records that key failed with c. For rate_limit, billing and auth
// the key is marked exhausted until resetAt (or, when resetAt is zero or
// past, a default cooldown: RateLimitCooldown, BillingCooldown,
// AuthCooldown); auth_permanent, or a second auth refusal of the same key,
// marks it dead. Other reasons (upstream_rate_limit included: the key is
// healthy) change nothing. If key was the current one, the pool moves to
// the next usable key. rotated reports that the pool now offers a usable
// key other than key: the caller should retry with Current().
func (p *CredentialPool) Report(key string, c Classified, resetAt time.Time) (rotated bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	i := p.index(key)
	if i < 0 {
		return false
	}
	now := p.now()
	k := &p.keys[i]
	switch c.Reason {
	case ReasonRateLimit:
		k.rest(now, resetAt, RateLimitCooldown)
	case ReasonBilling:
		k.rest(now, resetAt, BillingCooldown)
	case ReasonAuth:
		k.authStrikes++
		if k.authStrikes >= 2 {
			k.dead = true
		} else {
			k.rest(now, resetAt, AuthCooldown)
		}
	case ReasonAuthPermanent:
		k.dead = true
	default:
		return false
	}
	k.reason = c.Reason
	k.turnFailures++
	if p.cur == i {
		if next, ok := p.pick(i+1, now); ok {
			p.cur = next
		}
	}
	j, ok := p.pick(p.cur, now)
	return ok && j != i
}

// rest marks the key exhausted until resetAt, or for def from now.
func (k *poolKey) rest(now, resetAt time.Time, def time.Duration) {
	if resetAt.After(now) {
		k.until = resetAt
	} else {
		k.until = now.Add(def)
	}
}

// index returns the position of key, or -1.
func (p *CredentialPool) index(key string) int {
	for i := range p.keys {
		if p.keys[i].key == key {
			return i
		}
	}
	return -1
}

// CanRotate reports whether a usable key other than the current one
// exists.
func (p *CredentialPool) CanRotate() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	for i := range p.keys {
		if i != p.cur && p.usable(i, now) {
			return true
		}
	}
	return false
}

// RestingReason is the failover reason that took out the key coming back
// first (the last key's when none will come back), ReasonAuth when no key
// says: why a pool with no usable key has none.
func (p *CredentialPool) RestingReason() FailoverReason {
	p.mu.Lock()
	defer p.mu.Unlock()
	var reason FailoverReason
	var best time.Time
	for i := range p.keys {
		k := &p.keys[i]
		if k.reason == "" {
			continue
		}
		if reason == "" || (!k.dead && (best.IsZero() || k.until.Before(best))) {
			reason = k.reason
			if !k.dead {
				best = k.until
			}
		}
	}
	if reason == "" {
		return ReasonAuth
	}
	return reason
}

// NextReset returns the earliest time an exhausted key comes back, false
// when none will (all usable, or the rest are dead or benched this turn).
func (p *CredentialPool) NextReset() (time.Time, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	var best time.Time
	for i := range p.keys {
		k := &p.keys[i]
		if k.dead || !now.Before(k.until) || k.turnFailures > 1 {
			continue
		}
		if best.IsZero() || k.until.Before(best) {
			best = k.until
		}
	}
	return best, !best.IsZero()
}

// BeginTurn resets the per-turn counters: keys benched for failing again
// after coming back this turn may come back once more (once their reset
// time has passed).
func (p *CredentialPool) BeginTurn() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := range p.keys {
		p.keys[i].turnFailures = 0
	}
}

// Keys returns a snapshot of every key's state for the UI.
func (p *CredentialPool) Keys() []KeyState {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	out := make([]KeyState, len(p.keys))
	for i := range p.keys {
		k := &p.keys[i]
		s := KeyState{Index: i, Hint: keyHint(k.key), State: KeyOK, Current: i == p.cur, Reason: k.reason}
		switch {
		case k.dead:
			s.State = KeyDead
		case !p.usable(i, now):
			s.State, s.Until = KeyExhausted, k.until
		default:
			s.Reason = ""
		}
		out[i] = s
	}
	return out
}

// keyHint shows the last four characters of a key.
func keyHint(k string) string {
	if len(k) <= 4 {
		return "…"
	}
	return "…" + k[len(k)-4:]
}
