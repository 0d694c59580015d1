package anthropic

import (
	"context"
	"strings"
	"testing"

	"talaria/providers"
	"talaria/providers/providertest"
)

// TestHTTPErrors checks that the real error bodies of wire.md §4.2 become
// APIErrors with status, headers, raw body, message and type, and that the
// SDK makes exactly one attempt (its retries are off: the loop retries).
func TestHTTPErrors(t *testing.T) {
	rateHeaders := map[string]string{
		"Content-Type":                           "application/json",
		"Retry-After":                            "17",
		"Request-Id":                             "req_011CSLsW7mFqvHHnzrKdKjAE",
		"Anthropic-Ratelimit-Input-Tokens-Limit": "80000",
		"Anthropic-Ratelimit-Input-Tokens-Remaining": "0",
		"Anthropic-Ratelimit-Input-Tokens-Reset":     "2025-08-21T12:40:59Z",
		"Anthropic-Ratelimit-Requests-Remaining":     "999",
	}
	tests := []struct {
		name    string
		status  int
		headers map[string]string
		body    string
		msg     string // prefix
		typ     string
		code    string
		reason  string // providers.Classify reason
		check   map[string]string
	}{
		{
			name: "429 rate limit with retry-after and ratelimit headers", status: 429, headers: rateHeaders,
			body: `{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization (d3f27ff7-9afe-4ee2-9645-76ecfc73c2b7) of 40,000 input tokens per minute. For details, refer to: https://docs.anthropic.com/en/api/rate-limits. You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later. You may also contact sales at https://www.anthropic.com/contact-sales to discuss your options for a rate limit increase."}}`,
			msg:  "This request would exceed the rate limit for your organization", typ: "rate_limit_error", reason: providers.ReasonRateLimit,
			check: map[string]string{"Retry-After": "17", "Anthropic-Ratelimit-Input-Tokens-Remaining": "0", "Request-Id": "req_011CSLsW7mFqvHHnzrKdKjAE"},
		},
		{
			name: "529 overloaded with x-should-retry", status: 529,
			headers: map[string]string{"Content-Type": "application/json", "Request-Id": "req_01RCc7MbLyQNtGKzBTv8VCep", "X-Should-Retry": "true"},
			body:    `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
			msg:     "Overloaded", typ: "overloaded_error", reason: providers.ReasonOverloaded,
			check: map[string]string{"X-Should-Retry": "true"},
		},
		{
			name: "400 prompt too long", status: 400, headers: map[string]string{"Content-Type": "application/json", "X-Should-Retry": "false"},
			body: `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 200251 tokens > 200000 maximum"},"request_id":"req_011CWdepJvA2D819tdYYq4h7"}`,
			msg:  "prompt is too long: 200251 tokens > 200000 maximum", typ: "invalid_request_error", reason: providers.ReasonContextOverflow,
		},
		{
			name: "400 credit balance", status: 400, headers: map[string]string{"Content-Type": "application/json"},
			body: `{"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."},"request_id":"req_011CbrFTcXhtiMzr3s6EocF7"}`,
			msg:  "Your credit balance is too low", typ: "invalid_request_error",
		},
		{
			name: "401 invalid key", status: 401, headers: map[string]string{"Content-Type": "application/json"},
			body: `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`,
			msg:  "invalid x-api-key", typ: "authentication_error", reason: providers.ReasonAuth,
		},
		{
			name: "413 without top-level type", status: 413, headers: map[string]string{"Content-Type": "application/json"},
			body: `{"error":{"type":"request_too_large","message":"Request exceeds the maximum size"}}`,
			msg:  "Request exceeds the maximum size", typ: "request_too_large", reason: providers.ReasonPayloadTooLarge,
		},
		{
			name: "429 spend limit with details.error_code", status: 429, headers: map[string]string{"Content-Type": "application/json"},
			body: `{"type":"error","error":{"type":"rate_limit_error","message":"You have reached your monthly spend limit.","details":{"error_code":"enforced_spend_limit_reached"}}}`,
			msg:  "You have reached your monthly spend limit.", typ: "rate_limit_error", code: "enforced_spend_limit_reached",
		},
		{
			name: "502 HTML from a proxy", status: 502, headers: map[string]string{"Content-Type": "text/html"},
			body: "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body><center><h1>502 Bad Gateway</h1></center></body>\r\n</html>\r\n",
			msg:  "502 Bad Gateway (non-JSON error page", reason: providers.ReasonServerError,
		},
		{
			name: "500 empty body", status: 500, msg: "Internal Server Error", reason: providers.ReasonServerError,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := providertest.StartWire(t, providertest.WireReply{Status: tc.status, Headers: tc.headers, Body: []byte(tc.body)})
			tr := newTestTransport(t, srv)
			resp, err := tr.Stream(context.Background(), providertest.SimpleRequest(), nil)
			if resp != nil {
				t.Errorf("response %+v with an HTTP error", resp)
			}
			ae := providertest.AsAPIError(t, err)
			if ae.Status != tc.status || ae.MidStream || ae.Provider != "anthropic" {
				t.Errorf("status %d midstream %v provider %q", ae.Status, ae.MidStream, ae.Provider)
			}
			if ae.Body != tc.body {
				t.Errorf("body %q, want the raw body", ae.Body)
			}
			if !strings.HasPrefix(ae.Message, tc.msg) || ae.Type != tc.typ || ae.Code != tc.code {
				t.Errorf("message %q type %q code %q, want %q… %q %q", ae.Message, ae.Type, ae.Code, tc.msg, tc.typ, tc.code)
			}
			for k, v := range tc.check {
				if got := ae.Headers.Get(k); got != v {
					t.Errorf("header %s = %q, want %q", k, got, v)
				}
			}
			if tc.reason != "" {
				if c := providers.Classify(err); c.Reason != tc.reason {
					t.Errorf("Classify reason %q, want %q", c.Reason, tc.reason)
				}
			}
			if n := srv.Count(); n != 1 {
				t.Errorf("%d requests, want exactly 1 (SDK retries must be off)", n)
			}
		})
	}
}

// TestUnreachable checks a connection failure before any response.
func TestUnreachable(t *testing.T) {
	srv := providertest.StartWire(t, providertest.WireReply{})
	providertest.CheckUnreachable(t, srv, newTestTransport(t, srv))
}

// TestRequestBuildError checks that a request that cannot be built fails
// before any I/O with an APIError.
func TestRequestBuildError(t *testing.T) {
	srv := providertest.StartWire(t, providertest.WireReply{})
	tr := newTestTransport(t, srv)
	_, err := tr.Stream(context.Background(), providers.Request{Messages: []providers.Message{{Role: providers.RoleTool, Content: "x"}}}, nil)
	if ae := providertest.AsAPIError(t, err); ae.Status != 0 || !strings.Contains(ae.Message, "tool_call_id") {
		t.Errorf("APIError %+v", ae)
	}
	if n := srv.Count(); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}
