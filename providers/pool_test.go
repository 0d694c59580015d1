package providers

import (
	"sync"
	"testing"
	"time"
)

// fakeClock is a settable clock for pools and chains.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func mustCurrent(t *testing.T, p *CredentialPool, want string) {
	t.Helper()
	got, ok := p.Current()
	if !ok || got != want {
		t.Fatalf("Current() = %q, %v; want %q", got, ok, want)
	}
}

func TestPoolRotatesAwayFromFailingKey(t *testing.T) {
	clk := newFakeClock()
	p := NewCredentialPool("openai", []string{"k1", "k2", "k3", "k2", ""}, clk.Now)
	if p.Len() != 3 {
		t.Fatalf("duplicates and empties dropped: Len = %d", p.Len())
	}
	mustCurrent(t, p, "k1")
	if !p.Report("k1", newClassified(ReasonRateLimit), time.Time{}) {
		t.Fatal("rotation expected")
	}
	mustCurrent(t, p, "k2")
	// A late report about k3 (from a concurrent call) marks k3, not the
	// current key, and keeps k2 in use.
	if !p.Report("k3", newClassified(ReasonBilling), time.Time{}) {
		t.Error("k2 is still a usable key other than k3")
	}
	mustCurrent(t, p, "k2")
	// Now k2 fails: nothing usable remains.
	if p.Report("k2", newClassified(ReasonRateLimit), time.Time{}) {
		t.Error("no key left to rotate to")
	}
	if _, ok := p.Current(); ok {
		t.Error("all keys exhausted")
	}
	if p.CanRotate() {
		t.Error("CanRotate with nothing usable")
	}
	next, ok := p.NextReset()
	if !ok || !next.Equal(clk.Now().Add(RateLimitCooldown)) {
		t.Errorf("NextReset = %v %v", next, ok)
	}
	if p.Report("nope", newClassified(ReasonRateLimit), time.Time{}) {
		t.Error("unknown key")
	}
	if p.Report("k1", Classified{Reason: ReasonServerError}, time.Time{}) {
		t.Error("server errors do not rotate")
	}
}

func TestPoolExhaustedKeysReturnAfterReset(t *testing.T) {
	clk := newFakeClock()
	p := NewCredentialPool("anthropic", []string{"a", "b"}, clk.Now)
	p.Report("a", newClassified(ReasonRateLimit), clk.Now().Add(10*time.Second))
	p.Report("b", newClassified(ReasonBilling), time.Time{})
	if _, ok := p.Current(); ok {
		t.Fatal("both keys out")
	}
	clk.Advance(9 * time.Second)
	if _, ok := p.Current(); ok {
		t.Fatal("a comes back only at its reset")
	}
	clk.Advance(time.Second)
	mustCurrent(t, p, "a")
	if p.CanRotate() {
		t.Error("b rests for an hour")
	}
	clk.Advance(BillingCooldown)
	if !p.CanRotate() {
		t.Error("b is back after the billing cooldown")
	}
	// A reset time in the past falls back to the default cooldown.
	p2 := NewCredentialPool("x", []string{"a", "b"}, clk.Now)
	p2.Report("a", newClassified(ReasonRateLimit), clk.Now().Add(-time.Minute))
	ks := p2.Keys()
	if ks[0].State != KeyExhausted || !ks[0].Until.Equal(clk.Now().Add(RateLimitCooldown)) {
		t.Errorf("past reset: %+v", ks[0])
	}
}

func TestPoolDeadKeysStayOut(t *testing.T) {
	clk := newFakeClock()
	p := NewCredentialPool("openai", []string{"a", "b"}, clk.Now)
	p.Report("a", newClassified(ReasonAuthPermanent), time.Time{})
	mustCurrent(t, p, "b")
	clk.Advance(24 * time.Hour)
	p.BeginTurn()
	p.Report("b", newClassified(ReasonRateLimit), time.Time{})
	if _, ok := p.Current(); ok {
		t.Fatal("a is dead, b rests")
	}
	clk.Advance(RateLimitCooldown)
	mustCurrent(t, p, "b")
	if p.Keys()[0].State != KeyDead {
		t.Errorf("a: %+v", p.Keys()[0])
	}
	// auth: first refusal rests, the second (after coming back) kills.
	q := NewCredentialPool("openai", []string{"x", "y"}, clk.Now)
	q.Report("x", newClassified(ReasonAuth), time.Time{})
	if s := q.Keys()[0]; s.State != KeyExhausted || s.Reason != ReasonAuth {
		t.Errorf("first 401: %+v", s)
	}
	clk.Advance(AuthCooldown)
	q.Report("y", newClassified(ReasonAuthPermanent), time.Time{})
	mustCurrent(t, q, "x")
	q.Report("x", newClassified(ReasonAuth), time.Time{})
	if s := q.Keys()[0]; s.State != KeyDead {
		t.Errorf("second 401: %+v", s)
	}
	clk.Advance(48 * time.Hour)
	q.BeginTurn()
	if _, ok := q.Current(); ok {
		t.Error("dead keys never return")
	}
}

func TestPoolPerTurnCap(t *testing.T) {
	clk := newFakeClock()
	p := NewCredentialPool("openai", []string{"a"}, clk.Now)
	p.Report("a", newClassified(ReasonRateLimit), time.Time{})
	clk.Advance(RateLimitCooldown)
	mustCurrent(t, p, "a") // back once this turn
	p.Report("a", newClassified(ReasonRateLimit), time.Time{})
	clk.Advance(RateLimitCooldown)
	if _, ok := p.Current(); ok {
		t.Fatal("a key that failed again after coming back sits out the turn")
	}
	if _, ok := p.NextReset(); ok {
		t.Error("a benched key has no reset this turn")
	}
	p.BeginTurn()
	mustCurrent(t, p, "a")
}

func TestPoolWithoutKeys(t *testing.T) {
	p := NewCredentialPool("ollama", nil, nil)
	if k, ok := p.Current(); !ok || k != "" {
		t.Errorf("keyless pool: %q %v", k, ok)
	}
	if p.CanRotate() || p.Report("", newClassified(ReasonRateLimit), time.Time{}) {
		t.Error("nothing to rotate")
	}
	if len(p.Keys()) != 0 || p.Provider() != "ollama" {
		t.Error("snapshot")
	}
}

func TestPoolKeysSnapshot(t *testing.T) {
	clk := newFakeClock()
	p := NewCredentialPool("openai", []string{"sk-abcdwjh3", "sk-efgh1234"}, clk.Now)
	p.Report("sk-abcdwjh3", newClassified(ReasonBilling), time.Time{})
	ks := p.Keys()
	if len(ks) != 2 {
		t.Fatal(ks)
	}
	if ks[0].Index != 0 || ks[0].Hint != "…wjh3" || ks[0].State != KeyExhausted || ks[0].Current || ks[0].Reason != ReasonBilling {
		t.Errorf("key 0: %+v", ks[0])
	}
	if ks[1].State != KeyOK || !ks[1].Current || !ks[1].Until.IsZero() {
		t.Errorf("key 1: %+v", ks[1])
	}
	if p.CanRotate() {
		t.Error("the only other key is exhausted")
	}
}

func TestPoolConcurrent(t *testing.T) {
	clk := newFakeClock()
	p := NewCredentialPool("openai", []string{"a", "b", "c", "d"}, clk.Now)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 200 {
				k, ok := p.Current()
				if ok && j%7 == i%7 {
					p.Report(k, newClassified(ReasonRateLimit), time.Time{})
				}
				p.CanRotate()
				p.Keys()
				if j%50 == 0 {
					p.BeginTurn()
					clk.Advance(RateLimitCooldown)
				}
			}
		}()
	}
	wg.Wait()
}
