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
	cases := []providertest.HTTPErrorCase{
		{
			Name: "429 rate limit with retry-after", Status: 429,
			Headers: map[string]string{"Content-Type": "application/json", "Retry-After": "26", "X-Ratelimit-Reset-Tokens": "9ms", "X-Request-Id": "req_123"},
			Body:    `{"error":{"message":"Rate limit reached for gpt-4 in organization org-********** on tokens per min (TPM): Limit 10000, Used 9348, Requested 5086. Please try again in 26.604s. Visit https://platform.openai.com/account/rate-limits to learn more.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`,
			Msg:     "Rate limit reached for gpt-4", Type: "tokens", Code: "rate_limit_exceeded", Reason: providers.ReasonRateLimit,
			Check: map[string]string{"Retry-After": "26", "X-Ratelimit-Reset-Tokens": "9ms"},
		},
		{
			Name: "429 insufficient_quota", Status: 429, Headers: map[string]string{"Content-Type": "application/json"},
			Body: `{"error":{"message":"You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`,
			Msg:  "You exceeded your current quota", Type: "insufficient_quota", Code: "insufficient_quota", Reason: providers.ReasonBilling,
		},
		{
			Name: "400 context window (Responses wording)", Status: 400, Headers: map[string]string{"Content-Type": "application/json", "X-Should-Retry": "false"},
			Body: `{"error":{"message":"Your input exceeds the context window of this model. Please adjust your input and try again.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}}`,
			Msg:  "Your input exceeds the context window", Type: "invalid_request_error", Code: "context_length_exceeded", Reason: providers.ReasonContextOverflow,
			Check: map[string]string{"X-Should-Retry": "false"},
		},
		{
			Name: "401 invalid key", Status: 401, Headers: map[string]string{"Content-Type": "application/json"},
			Body: `{"error":{"message":"Incorrect API key provided: sk-VKMIs***wjh3. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
			Msg:  "Incorrect API key provided", Type: "invalid_request_error", Code: "invalid_api_key", Reason: providers.ReasonAuth,
		},
		{
			Name: "503 overloaded", Status: 503, Headers: map[string]string{"Content-Type": "application/json"},
			Body: `{"error":{"message":"That model is currently overloaded with other requests. You can retry your request, or contact us through our help center at help.openai.com if the error persists. (Please include the request ID 500d9fff2057e4af93a280f67002c342 in your message.)","type":"server_error","param":null,"code":null}}`,
			Msg:  "That model is currently overloaded", Type: "server_error", Reason: providers.ReasonOverloaded,
		},
		{
			Name: "502 HTML", Status: 502, Headers: map[string]string{"Content-Type": "text/html"},
			Body: "<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>",
			Msg:  "502 Bad Gateway (non-JSON error page", Reason: providers.ReasonServerError,
		},
	}
	providertest.CheckHTTPErrors(t, "openai", func(t testing.TB, srv *providertest.WireServer) providers.Transport {
		return newTestTransport(t, srv)
	}, cases)
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
