package providers

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Jitter draws the random part of backoff delays. Its seed mixes the clock
// with a locked counter so concurrent sessions decorrelate.
type Jitter struct {
	mu  sync.Mutex
	n   uint64
	rng *rand.Rand
}

// NewJitter returns a jitter source seeded from the clock.
func NewJitter() *Jitter {
	seed := uint64(time.Now().UnixNano())
	return &Jitter{rng: rand.New(rand.NewPCG(seed, seed^0x9E3779B97F4A7C15))}
}

// Float returns a number in [0, 1).
func (j *Jitter) Float() float64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.n++
	// Mix the counter in so two sources created in the same nanosecond
	// still diverge after their first draw.
	return float64((j.rng.Uint64()^(j.n*0x9E3779B9))>>11) / (1 << 53)
}

// Backoff is the jittered exponential delay before retry attempt n (1-based):
// min(base·2^(n−1), max) plus 0–50% of that.
func Backoff(n int, base, max time.Duration, jitter float64) time.Duration {
	if n < 1 {
		n = 1
	}
	d := base
	for i := 1; i < n && d < max; i++ {
		d *= 2
	}
	if d > max {
		d = max
	}
	return d + time.Duration(jitter*0.5*float64(d))
}

// RetryAfter reads a server-requested delay: the retry-after-ms header, the
// Retry-After header (seconds or an HTTP date), or a retry_after field in the
// JSON body (top level or under "error"). Values ≤ 0 are ignored.
func RetryAfter(h http.Header, body string, now time.Time) (time.Duration, bool) {
	if h != nil {
		if v := strings.TrimSpace(h.Get("retry-after-ms")); v != "" {
			if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
				return time.Duration(ms * float64(time.Millisecond)), true
			}
		}
		if v := strings.TrimSpace(h.Get("Retry-After")); v != "" {
			if s, err := strconv.ParseFloat(v, 64); err == nil {
				if s > 0 {
					return time.Duration(s * float64(time.Second)), true
				}
			} else if t, err := http.ParseTime(v); err == nil {
				if d := t.Sub(now); d > 0 {
					return d, true
				}
			}
		}
	}
	if body != "" {
		var b struct {
			RetryAfter *float64 `json:"retry_after"`
			Error      struct {
				RetryAfter *float64 `json:"retry_after"`
			} `json:"error"`
		}
		if json.Unmarshal([]byte(body), &b) == nil {
			for _, v := range []*float64{b.RetryAfter, b.Error.RetryAfter} {
				if v != nil && *v > 0 {
					return time.Duration(*v * float64(time.Second)), true
				}
			}
		}
	}
	return 0, false
}

// Sleep waits d or until ctx is done, and reports whether it slept fully.
func Sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// Classified is an error sorted into a failover reason with recovery hints.
type Classified struct {
	Reason                 string
	Status                 int
	Retryable              bool
	ShouldCompress         bool
	ShouldRotateCredential bool
	ShouldFallback         bool
	Message                string
}

// Classify sorts an error from a transport into a failover reason. It looks
// at the HTTP status first and then at well-known phrases of the body.
func Classify(err error) Classified {
	if err == nil {
		return Classified{}
	}
	var ae *APIError
	if !errors.As(err, &ae) {
		if errors.Is(err, context.DeadlineExceeded) {
			return Classified{Reason: "timeout", Retryable: true, Message: err.Error()}
		}
		return Classified{Reason: "unknown", Retryable: true, Message: err.Error()}
	}
	c := Classified{Status: ae.Status, Message: ae.Error()}
	text := strings.ToLower(ae.Message + " " + ae.Body + " " + ae.Code + " " + ae.Type)
	switch {
	case strings.Contains(text, "context_length_exceeded") || strings.Contains(text, "maximum context length") ||
		strings.Contains(text, "prompt is too long") || strings.Contains(text, "context window"):
		c.Reason, c.ShouldCompress = "context_overflow", true
	case ae.Status == 413:
		c.Reason, c.ShouldCompress = "payload_too_large", true
	case strings.Contains(text, "insufficient_quota") || strings.Contains(text, "billing") || ae.Status == 402:
		c.Reason, c.ShouldRotateCredential, c.ShouldFallback = "billing", true, true
	case ae.Status == 401 || ae.Status == 403:
		c.Reason, c.ShouldRotateCredential, c.ShouldFallback = "auth", true, true
	case ae.Status == 404:
		c.Reason, c.ShouldFallback = "model_not_found", true
	case ae.Status == 429:
		c.Reason, c.Retryable, c.ShouldRotateCredential, c.ShouldFallback = "rate_limit", true, true, true
	case ae.Status == 529 || strings.Contains(text, "overloaded"):
		c.Reason, c.Retryable, c.ShouldFallback = "overloaded", true, true
	case ae.Status == 408 || ae.Status == 504:
		c.Reason, c.Retryable = "timeout", true
	case ae.Status >= 500 || ae.Status == 0:
		c.Reason, c.Retryable = "server_error", true
	case ae.Status == 400:
		c.Reason = "format_error"
	default:
		c.Reason = "unknown"
	}
	if ae.Headers != nil && strings.EqualFold(ae.Headers.Get("x-should-retry"), "false") {
		c.Retryable = false
	}
	return c
}
