package providers

import (
	"fmt"
	"testing"
	"time"
)

// TestClassify429WithResetsAtIsARateLimit: a 429 whose body says when
// the limit lifts (resets_at, resets_in_seconds, reset_at) is a rate
// limit, even with a quota or billing code or wording: the limit comes
// back, so the turn waits for it (StructuredReset, when the reset is
// ahead) rather than stopping on billing. On main the codes won.
func TestClassify429WithResetsAtIsARateLimit(t *testing.T) {
	ahead := time.Now().Add(20 * time.Minute)
	past := time.Now().Add(-time.Minute)
	cases := []struct {
		name  string
		body  string
		reset bool
	}{
		{"insufficient_quota with resets_at", fmt.Sprintf(`{"error":{"code":"insufficient_quota","message":"You exceeded your current quota","resets_at":%d}}`, ahead.Unix()), true},
		{"billing_error with an RFC 3339 resets_at", fmt.Sprintf(`{"error":{"type":"billing_error","message":"Monthly quota reached.","resets_at":%q}}`, ahead.UTC().Format(time.RFC3339)), true},
		{"payment_required with reset_at in ms", fmt.Sprintf(`{"error":{"code":"payment_required","message":"quota","reset_at":%d}}`, ahead.UnixMilli()), true},
		{"usage_limit_reached with a reset already past", fmt.Sprintf(`{"error":{"type":"usage_limit_reached","message":"The usage limit has been reached","resets_at":%d}}`, past.Unix()), false},
		{"top-level resets_in_seconds", `{"message":"Insufficient credits for this window","resets_in_seconds":90}`, true},
	}
	for _, tc := range cases {
		c := Classify(&APIError{Status: 429, Body: tc.body})
		if c.Reason != ReasonRateLimit || c.StructuredReset != tc.reset || !c.Retryable {
			t.Errorf("%s: %s (structured reset %v, retryable %v), want rate_limit (structured reset %v)", tc.name, c.Reason, c.StructuredReset, c.Retryable, tc.reset)
		}
	}
	// Without a reset, a quota wall stays billing.
	if c := Classify(&APIError{Status: 429, Body: `{"error":{"code":"insufficient_quota","message":"You exceeded your current quota","resets_at":null}}`}); c.Reason != ReasonBilling {
		t.Errorf("a null resets_at: %s, want billing", c.Reason)
	}
}

// TestClassify413IsPayloadTooLarge: a 413, whatever its body says (an
// overflow phrase, a per-minute token wording, a rate-limit or overflow
// code, an HTML page from a proxy), is payload_too_large: compress and
// resend. (It held on main already; pinned here with the shapes seen.)
func TestClassify413IsPayloadTooLarge(t *testing.T) {
	for _, body := range []string{
		`{"error":{"message":"Request too large","type":"invalid_request_error"}}`,
		`{"error":{"message":"prompt is too long: 250000 tokens > 200000 maximum","type":"invalid_request_error"}}`,
		`<html><body><h1>413 Request Entity Too Large</h1></body></html>`,
		`{"error":{"code":"rate_limit_exceeded","message":"Request too large for gpt-4o on tokens per min (TPM): Limit 30000, Requested 50000."}}`,
		`{"error":{"type":"request_too_large","message":"Request exceeds the maximum size"}}`,
		`{"error":{"code":"context_length_exceeded","message":"too long"}}`,
		`{"message":"Input is too long for requested model."}`,
		``,
	} {
		c := Classify(&APIError{Status: 413, Body: body})
		if c.Reason != ReasonPayloadTooLarge || !c.ShouldCompress {
			t.Errorf("413 %q: %s (compress %v)", body, c.Reason, c.ShouldCompress)
		}
	}
}
