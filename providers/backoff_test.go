package providers

import (
	"context"
	"net/http"
	"testing"
	"time"
)

func TestBackoffGrowthCapJitter(t *testing.T) {
	base, maxD := 2*time.Second, 60*time.Second
	want := []time.Duration{2, 4, 8, 16, 32, 60, 60, 60}
	for i, w := range want {
		n := i + 1
		if got := Backoff(n, base, maxD, 0); got != w*time.Second {
			t.Errorf("Backoff(%d, jitter 0) = %v, want %v", n, got, w*time.Second)
		}
		hi := Backoff(n, base, maxD, 0.999999)
		if lo := w * time.Second; hi < lo || hi > lo+lo/2 {
			t.Errorf("Backoff(%d, jitter≈1) = %v, outside [%v, %v]", n, hi, lo, lo+lo/2)
		}
	}
	if got := Backoff(0, base, maxD, 0); got != base {
		t.Errorf("n<1 treated as 1: %v", got)
	}
	if got := Backoff(1000, base, maxD, 0); got != maxD {
		t.Errorf("huge n: %v", got)
	}
	if got := Backoff(3, base, maxD, 7); got != 12*time.Second {
		t.Errorf("jitter clamped to 1: %v", got)
	}
	if got := Backoff(3, 0, maxD, 0.5); got != 0 {
		t.Errorf("zero base: %v", got)
	}
	j := NewJitter()
	for range 1000 {
		f := j.Float()
		if f < 0 || f >= 1 {
			t.Fatalf("Float() = %v", f)
		}
		d := Backoff(2, base, maxD, f)
		if d < 4*time.Second || d >= 6*time.Second {
			t.Fatalf("jittered delay %v out of [4s, 6s)", d)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	hdr := func(kv ...string) http.Header {
		h := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			h.Set(kv[i], kv[i+1])
		}
		return h
	}
	cases := []struct {
		name string
		h    http.Header
		body string
		want time.Duration
		ok   bool
	}{
		{"seconds", hdr("Retry-After", "17"), "", 17 * time.Second, true},
		{"fractional seconds", hdr("retry-after", "1.5"), "", 1500 * time.Millisecond, true},
		{"http date", hdr("Retry-After", now.Add(90*time.Second).Format(http.TimeFormat)), "", 90 * time.Second, true},
		{"http date in the past", hdr("Retry-After", now.Add(-time.Minute).Format(http.TimeFormat)), "", 0, false},
		{"ms first", hdr("retry-after-ms", "250", "Retry-After", "9"), "", 250 * time.Millisecond, true},
		{"bad ms falls through", hdr("retry-after-ms", "soon", "Retry-After", "9"), "", 9 * time.Second, true},
		{"negative", hdr("Retry-After", "-5"), "", 0, false},
		{"zero", hdr("Retry-After", "0"), "", 0, false},
		{"garbage", hdr("Retry-After", "tomorrow-ish"), "", 0, false},
		{"body top level", nil, `{"retry_after": 3}`, 3 * time.Second, true},
		{"body under error", nil, `{"error":{"message":"slow","retry_after":2.5}}`, 2500 * time.Millisecond, true},
		{"body string value", nil, `{"error":{"retry_after":"4"}}`, 4 * time.Second, true},
		{"body negative", nil, `{"retry_after": -1}`, 0, false},
		{"body garbage", nil, `{"retry_after": "later"}`, 0, false},
		{"body not json", nil, `retry_after: 5`, 0, false},
		{"body array", nil, `[{"error":{"retry_after":5}}]`, 0, false},
		{"header wins over body", hdr("Retry-After", "1"), `{"retry_after": 30}`, time.Second, true},
		{"nothing", nil, "", 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := RetryAfter(tc.h, tc.body, now)
			if got != tc.want || ok != tc.ok {
				t.Errorf("RetryAfter = %v, %v; want %v, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestResetHint(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	h := http.Header{}
	h.Set("x-ratelimit-reset-requests", "12ms")
	h.Set("x-ratelimit-reset-tokens", "6m0s")
	if d, ok := ResetHint(h, "", now); !ok || d != 6*time.Minute {
		t.Errorf("larger bucket: %v %v", d, ok)
	}
	h.Set("x-ratelimit-remaining-requests", "0")
	h.Set("x-ratelimit-remaining-tokens", "159976")
	if d, ok := ResetHint(h, "", now); !ok || d != 12*time.Millisecond {
		t.Errorf("empty requests bucket: %v %v", d, ok)
	}
	or := http.Header{}
	or.Set("X-RateLimit-Reset", "1772366430000") // Unix ms, 30 s after now
	if d, ok := ResetHint(or, "", now); !ok || d != 30*time.Second {
		t.Errorf("unix ms: %v %v", d, ok)
	}
	body := `{"error":{"message":"Rate limit reached ... Please try again in 26.604s. Visit https://platform.openai.com/account/rate-limits to learn more."}}`
	if d, ok := ResetHint(nil, body, now); !ok || d != 26604*time.Millisecond {
		t.Errorf("try again in: %v %v", d, ok)
	}
	if d, ok := ResetHint(nil, "Please try again in 174ms.", now); !ok || d != 174*time.Millisecond {
		t.Errorf("try again in ms: %v %v", d, ok)
	}
	if _, ok := ResetHint(nil, "try again in a while", now); ok {
		t.Error("no duration must give no hint")
	}
}

func TestRetryDelay(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	pol := RetryPolicy{MaxRetries: 3, BaseDelay: 2 * time.Second, MaxDelay: 60 * time.Second, RetryAfterCap: 600 * time.Second}
	rl := Classified{Reason: ReasonRateLimit, Retryable: true}
	srv := Classified{Reason: ReasonServerError, Retryable: true}
	h := func(v string) http.Header { x := http.Header{}; x.Set("Retry-After", v); return x }

	if d, hon, long := RetryDelay(srv, 3, nil, "", pol, 0, now); d != 8*time.Second || hon || long {
		t.Errorf("plain backoff: %v %v %v", d, hon, long)
	}
	if d, hon, long := RetryDelay(rl, 1, h("30"), "", pol, 0.9, now); d != 30*time.Second || !hon || long {
		t.Errorf("retry-after: %v %v %v", d, hon, long)
	}
	if d, hon, long := RetryDelay(srv, 1, h("5"), "", pol, 0, now); d != 5*time.Second || !hon || long {
		t.Errorf("retry-after honoured for every retryable error: %v %v %v", d, hon, long)
	}
	if d, hon, long := RetryDelay(rl, 1, h("3600"), "", pol, 0, now); d != time.Hour || !hon || !long {
		t.Errorf("too long: %v %v %v", d, hon, long)
	}
	body := `{"error":{"message":"Please try again in 26.604s."}}`
	if d, hon, _ := RetryDelay(rl, 1, nil, body, pol, 0, now); d != 26604*time.Millisecond || !hon {
		t.Errorf("rate-limit hint: %v %v", d, hon)
	}
	short := `{"error":{"message":"Please try again in 174ms."}}`
	if d, hon, _ := RetryDelay(rl, 2, nil, short, pol, 0, now); d != 4*time.Second || !hon {
		t.Errorf("hint never shorter than backoff: %v %v", d, hon)
	}
	if d, hon, _ := RetryDelay(srv, 1, nil, body, pol, 0, now); d != 2*time.Second || hon {
		t.Errorf("hints only for rate limits: %v %v", d, hon)
	}
	nocap := pol
	nocap.RetryAfterCap = 0
	if _, _, long := RetryDelay(rl, 1, h("3600"), "", nocap, 0, now); long {
		t.Error("cap 0 means no cap")
	}
	if p := DefaultRetryPolicy(); p.MaxRetries != 3 || p.BaseDelay != 2*time.Second || p.MaxDelay != time.Minute || p.RetryAfterCap != 10*time.Minute {
		t.Errorf("defaults: %+v", p)
	}
}

func TestSleep(t *testing.T) {
	if !Sleep(context.Background(), time.Millisecond) {
		t.Error("full sleep reported short")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if Sleep(ctx, time.Hour) {
		t.Error("cancelled sleep reported full")
	}
	if Sleep(ctx, 0) {
		t.Error("zero sleep on a dead context")
	}
	if !Sleep(context.Background(), -time.Second) {
		t.Error("negative sleep on a live context")
	}
}
