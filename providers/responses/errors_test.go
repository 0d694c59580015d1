package responses

import (
	"context"
	"strings"
	"testing"

	"talaria/providers"
	"talaria/providers/providertest"
)

// TestHTTPErrors checks that OpenAI error bodies (wire.md §4.1) become
// APIErrors with status, headers, raw body, message, type and code, each
// requested exactly once (nothing is retried here).
func TestHTTPErrors(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		headers map[string]string
		body    string
		msg     string // prefix
		typ     string
		code    string
		reason  string
		check   map[string]string
	}{
		{
			name: "429 rate limit with retry-after", status: 429,
			headers: map[string]string{"Content-Type": "application/json", "Retry-After": "26", "X-Ratelimit-Reset-Tokens": "9ms", "X-Request-Id": "req_123"},
			body:    `{"error":{"message":"Rate limit reached for gpt-4 in organization org-********** on tokens per min (TPM): Limit 10000, Used 9348, Requested 5086. Please try again in 26.604s. Visit https://platform.openai.com/account/rate-limits to learn more.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`,
			msg:     "Rate limit reached for gpt-4", typ: "tokens", code: "rate_limit_exceeded", reason: providers.ReasonRateLimit,
			check: map[string]string{"Retry-After": "26", "X-Ratelimit-Reset-Tokens": "9ms"},
		},
		{
			name: "429 insufficient_quota", status: 429, headers: map[string]string{"Content-Type": "application/json"},
			body: `{"error":{"message":"You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`,
			msg:  "You exceeded your current quota", typ: "insufficient_quota", code: "insufficient_quota", reason: providers.ReasonBilling,
		},
		{
			name: "400 context window (Responses wording)", status: 400, headers: map[string]string{"Content-Type": "application/json", "X-Should-Retry": "false"},
			body: `{"error":{"message":"Your input exceeds the context window of this model. Please adjust your input and try again.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}}`,
			msg:  "Your input exceeds the context window", typ: "invalid_request_error", code: "context_length_exceeded", reason: providers.ReasonContextOverflow,
			check: map[string]string{"X-Should-Retry": "false"},
		},
		{
			name: "401 invalid key", status: 401, headers: map[string]string{"Content-Type": "application/json"},
			body: `{"error":{"message":"Incorrect API key provided: sk-VKMIs***wjh3. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
			msg:  "Incorrect API key provided", typ: "invalid_request_error", code: "invalid_api_key", reason: providers.ReasonAuth,
		},
		{
			name: "503 overloaded", status: 503, headers: map[string]string{"Content-Type": "application/json"},
			body: `{"error":{"message":"That model is currently overloaded with other requests. You can retry your request, or contact us through our help center at help.openai.com if the error persists. (Please include the request ID 500d9fff2057e4af93a280f67002c342 in your message.)","type":"server_error","param":null,"code":null}}`,
			msg:  "That model is currently overloaded", typ: "server_error", reason: providers.ReasonOverloaded,
		},
		{
			name: "502 HTML", status: 502, headers: map[string]string{"Content-Type": "text/html"},
			body: "<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>",
			msg:  "502 Bad Gateway (non-JSON error page", reason: providers.ReasonServerError,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := providertest.StartWire(t, providertest.WireReply{Status: tc.status, Headers: tc.headers, Body: []byte(tc.body)})
			resp, err := newTestTransport(t, srv).Stream(context.Background(), providertest.SimpleRequest(), nil)
			if resp != nil {
				t.Errorf("response %+v with an HTTP error", resp)
			}
			ae := providertest.AsAPIError(t, err)
			if ae.Status != tc.status || ae.MidStream || ae.Body != tc.body || ae.Provider != "openai" {
				t.Errorf("status %d midstream %v body %q", ae.Status, ae.MidStream, ae.Body)
			}
			if !strings.HasPrefix(ae.Message, tc.msg) || ae.Type != tc.typ || ae.Code != tc.code {
				t.Errorf("message %q type %q code %q, want %q… %q %q", ae.Message, ae.Type, ae.Code, tc.msg, tc.typ, tc.code)
			}
			for k, v := range tc.check {
				if got := ae.Headers.Get(k); got != v {
					t.Errorf("header %s = %q, want %q", k, got, v)
				}
			}
			if c := providers.Classify(err); c.Reason != tc.reason {
				t.Errorf("Classify reason %q, want %q", c.Reason, tc.reason)
			}
			if n := srv.Count(); n != 1 {
				t.Errorf("%d requests, want 1", n)
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
// before any I/O.
func TestRequestBuildError(t *testing.T) {
	srv := providertest.StartWire(t, providertest.WireReply{})
	_, err := newTestTransport(t, srv).Stream(context.Background(), providers.Request{Messages: []providers.Message{{Role: providers.RoleTool}}}, nil)
	if ae := providertest.AsAPIError(t, err); !strings.Contains(ae.Message, "tool_call_id") {
		t.Errorf("APIError %+v", ae)
	}
	if n := srv.Count(); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}
