package providers

import (
	"context"
	"encoding/json"
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
// min(base·2^(n−1), max) plus 0–50% of that (jitter in [0, 1)).
func Backoff(n int, base, maxDelay time.Duration, jitter float64) time.Duration {
	if n < 1 {
		n = 1
	}
	if base <= 0 {
		return 0
	}
	d := base
	for i := 1; i < n && (maxDelay <= 0 || d < maxDelay) && d < 1<<40; i++ {
		d *= 2
	}
	if maxDelay > 0 && d > maxDelay {
		d = maxDelay
	}
	jitter = min(max(jitter, 0), 1)
	return d + time.Duration(jitter*0.5*float64(d))
}

// RetryAfter reads a server-requested delay: the retry-after-ms header, the
// Retry-After header (seconds or an HTTP date), or a retry_after field in the
// JSON body (top level or under "error"). Values ≤ 0 are ignored.
func RetryAfter(h http.Header, body string, now time.Time) (time.Duration, bool) {
	if h != nil {
		if v := strings.TrimSpace(h.Get("retry-after-ms")); v != "" {
			if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 && ms < 1e12 {
				return time.Duration(ms * float64(time.Millisecond)), true
			}
		}
		if v := strings.TrimSpace(h.Get("Retry-After")); v != "" {
			if s, err := strconv.ParseFloat(v, 64); err == nil {
				if s > 0 && s < 1e9 {
					return time.Duration(s * float64(time.Second)), true
				}
			} else if t, err := http.ParseTime(v); err == nil {
				if d := t.Sub(now); d > 0 {
					return d, true
				}
			}
		}
	}
	if body = strings.TrimSpace(body); body != "" && body[0] == '{' {
		var b struct {
			RetryAfter json.RawMessage `json:"retry_after"`
			Error      json.RawMessage `json:"error"`
		}
		if json.Unmarshal([]byte(body), &b) == nil {
			if d, ok := seconds(b.RetryAfter); ok {
				return d, true
			}
			var inner struct {
				RetryAfter json.RawMessage `json:"retry_after"`
			}
			if len(b.Error) > 0 && b.Error[0] == '{' && json.Unmarshal(b.Error, &inner) == nil {
				if d, ok := seconds(inner.RetryAfter); ok {
					return d, true
				}
			}
		}
	}
	return 0, false
}

// seconds decodes a positive number of seconds (a JSON number or numeric
// string).
func seconds(raw json.RawMessage) (time.Duration, bool) {
	v := strings.Trim(jsonScalar(raw), " ")
	if v == "" {
		return 0, false
	}
	s, err := strconv.ParseFloat(v, 64)
	if err != nil || s <= 0 || s >= 1e9 {
		return 0, false
	}
	return time.Duration(s * float64(time.Second)), true
}

// ResetHint reads softer hints of when a limit lifts, for a 429 without
// Retry-After: the larger of x-ratelimit-reset-requests and
// x-ratelimit-reset-tokens (Go-style durations such as "12ms", "1s",
// "6m0s") for the buckets whose x-ratelimit-remaining-* is 0 (or either,
// when no remaining header says which), x-ratelimit-reset (seconds, or a
// Unix time in seconds or milliseconds), then "try again in 26.604s" in
// the body.
func ResetHint(h http.Header, body string, now time.Time) (time.Duration, bool) {
	var best time.Duration
	if h != nil {
		someEmpty := isZero(h.Get("x-ratelimit-remaining-requests")) || isZero(h.Get("x-ratelimit-remaining-tokens"))
		for _, bucket := range [...]string{"requests", "tokens"} {
			if someEmpty && !isZero(h.Get("x-ratelimit-remaining-"+bucket)) {
				continue // the other bucket is the empty one
			}
			if d, ok := parseResetDuration(h.Get("x-ratelimit-reset-" + bucket)); ok && d > best {
				best = d
			}
		}
		if v := strings.TrimSpace(h.Get("x-ratelimit-reset")); v != "" && best == 0 {
			if n, err := strconv.ParseFloat(v, 64); err == nil && n > 0 {
				var d time.Duration
				switch {
				case n > 1e12: // Unix milliseconds (OpenRouter)
					d = time.UnixMilli(int64(n)).Sub(now)
				case n > 1e9: // Unix seconds
					d = time.Unix(int64(n), 0).Sub(now)
				default:
					d = time.Duration(n * float64(time.Second))
				}
				if d > 0 {
					best = d
				}
			} else if d, ok := parseResetDuration(v); ok {
				best = d
			}
		}
	}
	if best > 0 {
		return best, true
	}
	return tryAgainIn(body)
}

// isZero reports a header value of 0.
func isZero(v string) bool { return strings.TrimSpace(v) == "0" }

// parseResetDuration parses "12ms", "1s", "6m0s", "1m30.5s" or bare seconds.
func parseResetDuration(v string) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if d, err := time.ParseDuration(v); err == nil {
		return d, d > 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s > 0 && s < 1e9 {
		return time.Duration(s * float64(time.Second)), true
	}
	return 0, false
}

// tryAgainIn reads "try again in 26.604s" / "174ms" / "1m30s" from text.
func tryAgainIn(body string) (time.Duration, bool) {
	const marker = "try again in "
	lower := strings.ToLower(body)
	i := strings.Index(lower, marker)
	if i < 0 {
		return 0, false
	}
	rest := lower[i+len(marker):]
	end := 0
	for end < len(rest) && strings.IndexByte("0123456789.hms", rest[end]) >= 0 {
		end++
	}
	tok := strings.TrimSuffix(rest[:end], ".")
	if d, err := time.ParseDuration(tok); err == nil && d > 0 {
		return d, true
	}
	return 0, false
}

// RetryPolicy is the timing of the inner retry loop (agent.api_max_retries,
// retry_base_delay, retry_max_delay, retry_after_cap).
type RetryPolicy struct {
	// MaxRetries is the number of retries after the first attempt.
	MaxRetries int
	// BaseDelay and MaxDelay shape the exponential backoff.
	BaseDelay time.Duration
	MaxDelay  time.Duration
	// RetryAfterCap is the longest server-requested wait honoured; longer
	// requests are not waited for. 0 means no cap.
	RetryAfterCap time.Duration
}

// DefaultRetryPolicy is the documented default: 3 retries, 2 s doubling to
// 60 s, Retry-After honoured up to 600 s.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaxRetries: 3, BaseDelay: 2 * time.Second, MaxDelay: 60 * time.Second, RetryAfterCap: 600 * time.Second}
}

// RetryDelay is the wait before retry attempt (1-based) of an error
// classified as c, whose response carried h and body. A server-requested
// delay (RetryAfter; for rate limits also a reset stated in the body —
// resets_in_seconds, resets_at — and ResetHint, never shorter than the
// backoff) wins over the backoff and sets honoured; tooLong reports that
// the server asked for more than pol.RetryAfterCap, in which case the
// caller should fall back or give up rather than wait. An error marked
// AdaptiveBackoff waits AdaptiveDelay from its fourth retry on. jitter is
// in [0, 1).
func RetryDelay(c Classified, attempt int, h http.Header, body string, pol RetryPolicy, jitter float64, now time.Time) (delay time.Duration, honoured bool, tooLong bool) {
	if c.Reason == ReasonConnectionRefused {
		return ConnectionRefusedDelay(attempt), false, false
	}
	backoff := Backoff(attempt, pol.BaseDelay, pol.MaxDelay, jitter)
	server, ok := RetryAfter(h, body, now)
	if !ok && (c.Reason == ReasonRateLimit || c.Reason == ReasonUpstreamRateLimit) {
		if server, ok = bodyResetIn(body, now); !ok {
			server, ok = ResetHint(h, body, now)
		}
		if ok {
			server = max(server, backoff)
		}
	}
	if !ok {
		if c.AdaptiveBackoff {
			if d, slow := AdaptiveDelay(attempt, jitter); slow {
				if pol.RetryAfterCap > 0 && d > pol.RetryAfterCap {
					d = pol.RetryAfterCap
				}
				return d, false, false
			}
		}
		return backoff, false, false
	}
	return server, true, pol.RetryAfterCap > 0 && server > pol.RetryAfterCap
}

// AdaptiveRetries is how many retries an AdaptiveBackoff error gets at
// least: 3 with the normal backoff and 4 slow ones.
const AdaptiveRetries = 7

// AdaptiveDelay is the wait before retry attempt (1-based) of a known
// overload whose windows outlast short backoffs (Z.AI code 1305): the
// first 3 retries use the normal backoff (slow is false), later ones 30,
// 60, 90 and then 120 s, plus up to 20% jitter.
func AdaptiveDelay(attempt int, jitter float64) (d time.Duration, slow bool) {
	if attempt <= 3 {
		return 0, false
	}
	steps := [...]time.Duration{30 * time.Second, 60 * time.Second, 90 * time.Second, 120 * time.Second}
	d = steps[min(attempt-4, len(steps)-1)]
	jitter = min(max(jitter, 0), 1)
	return d + time.Duration(jitter*0.2*float64(d)), true
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
