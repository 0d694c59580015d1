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
	cases := []providertest.HTTPErrorCase{
		{
			Name: "429 rate limit with retry-after and ratelimit headers", Status: 429, Headers: rateHeaders,
			Body: `{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization (d3f27ff7-9afe-4ee2-9645-76ecfc73c2b7) of 40,000 input tokens per minute. For details, refer to: https://docs.anthropic.com/en/api/rate-limits. You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later. You may also contact sales at https://www.anthropic.com/contact-sales to discuss your options for a rate limit increase."}}`,
			Msg:  "This request would exceed the rate limit for your organization", Type: "rate_limit_error", Reason: providers.ReasonRateLimit,
			Check: map[string]string{"Retry-After": "17", "Anthropic-Ratelimit-Input-Tokens-Remaining": "0", "Request-Id": "req_011CSLsW7mFqvHHnzrKdKjAE"},
		},
		{
			Name: "529 overloaded with x-should-retry", Status: 529,
			Headers: map[string]string{"Content-Type": "application/json", "Request-Id": "req_01RCc7MbLyQNtGKzBTv8VCep", "X-Should-Retry": "true"},
			Body:    `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
			Msg:     "Overloaded", Type: "overloaded_error", Reason: providers.ReasonOverloaded,
			Check: map[string]string{"X-Should-Retry": "true"},
		},
		{
			Name: "400 prompt too long", Status: 400, Headers: map[string]string{"Content-Type": "application/json", "X-Should-Retry": "false"},
			Body: `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 200251 tokens > 200000 maximum"},"request_id":"req_011CWdepJvA2D819tdYYq4h7"}`,
			Msg:  "prompt is too long: 200251 tokens > 200000 maximum", Type: "invalid_request_error", Reason: providers.ReasonContextOverflow,
		},
		{
			Name: "400 credit balance", Status: 400, Headers: map[string]string{"Content-Type": "application/json"},
			Body: `{"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."},"request_id":"req_011CbrFTcXhtiMzr3s6EocF7"}`,
			Msg:  "Your credit balance is too low", Type: "invalid_request_error",
		},
		{
			Name: "401 invalid key", Status: 401, Headers: map[string]string{"Content-Type": "application/json"},
			Body: `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`,
			Msg:  "invalid x-api-key", Type: "authentication_error", Reason: providers.ReasonAuth,
		},
		{
			Name: "413 without top-level type", Status: 413, Headers: map[string]string{"Content-Type": "application/json"},
			Body: `{"error":{"type":"request_too_large","message":"Request exceeds the maximum size"}}`,
			Msg:  "Request exceeds the maximum size", Type: "request_too_large", Reason: providers.ReasonPayloadTooLarge,
		},
		{
			Name: "429 spend limit with details.error_code", Status: 429, Headers: map[string]string{"Content-Type": "application/json"},
			Body: `{"type":"error","error":{"type":"rate_limit_error","message":"You have reached your monthly spend limit.","details":{"error_code":"enforced_spend_limit_reached"}}}`,
			Msg:  "You have reached your monthly spend limit.", Type: "rate_limit_error", Code: "enforced_spend_limit_reached",
		},
		{
			Name: "502 HTML from a proxy", Status: 502, Headers: map[string]string{"Content-Type": "text/html"},
			Body: "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body><center><h1>502 Bad Gateway</h1></center></body>\r\n</html>\r\n",
			Msg:  "502 Bad Gateway (non-JSON error page", Reason: providers.ReasonServerError,
		},
		{
			Name: "500 empty body", Status: 500, Msg: "Internal Server Error", Reason: providers.ReasonServerError,
		},
	}
	providertest.CheckHTTPErrors(t, "anthropic", func(t testing.TB, srv *providertest.WireServer) providers.Transport {
		return newTestTransport(t, srv)
	}, cases)
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
