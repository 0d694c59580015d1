package providers

import (
	"net/http"
	"testing"
	"time"
)

// Issue 18's classifier rules, over the real bodies.
func TestTrafficClassifierRules(t *testing.T) {
	zai := ClassifyInput{BaseURL: "https://api.z.ai/api/coding/paas/v4", Model: "glm-4.6"}
	cases := []struct {
		name    string
		status  int
		body    string
		headers map[string]string
		in      ClassifyInput
		reason  FailoverReason
		reset   bool
		slow    bool
	}{
		{"quota wall in a rate-limit envelope", 429, `{"type":"error","error":{"type":"rate_limit_error","message":"Monthly quota reached."}}`, nil, ClassifyInput{}, ReasonBilling, false, false},
		{"key limit with a rate-limit code", 429, `{"error":{"message":"API key limit exceeded.","code":"rate_limit_exceeded"}}`, nil, ClassifyInput{}, ReasonBilling, false, false},
		{"insufficient credits", 429, `{"error":{"message":"Insufficient credits remaining.","type":"rate_limit_error"}}`, nil, ClassifyInput{}, ReasonBilling, false, false},
		{"openai insufficient_quota with ratelimit headers", 429, `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`, map[string]string{"x-ratelimit-reset-requests": "12ms"}, ClassifyInput{}, ReasonBilling, false, false},
		{"usage limit with resets_in_seconds", 429, `{"error":{"type":"usage_limit_reached","message":"The usage limit has been reached","plan_type":"plus","resets_in_seconds":1834}}`, nil, ClassifyInput{}, ReasonRateLimit, true, false},
		{"usage limit with resets_at", 429, `{"error":{"type":"usage_limit_reached","message":"The usage limit has been reached","resets_at":4102444800}}`, nil, ClassifyInput{}, ReasonRateLimit, true, false},
		{"usage limit with x-ratelimit-reset", 429, `{"error":{"message":"You've hit your usage limit."}}`, map[string]string{"x-ratelimit-reset": "60"}, ClassifyInput{}, ReasonRateLimit, true, false},
		{"usage limit, no reset", 429, `{"error":{"type":"usage_limit_reached","message":"The usage limit has been reached"}}`, nil, ClassifyInput{}, ReasonBilling, false, false},
		{"gemini resource exhausted stays a rate limit", 429, `[{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}]`, nil, ClassifyInput{}, ReasonRateLimit, false, false},
		{"plain rate limit", 429, `{"error":{"message":"Rate limit reached for gpt-4o on requests per min (RPM): Limit 500. Please try again in 174ms.","type":"requests","code":"rate_limit_exceeded"}}`, nil, ClassifyInput{}, ReasonRateLimit, false, false},
		{"z.ai 1305 on the coding plan", 429, `{"error":{"code":"1305","message":"The service may be temporarily overloaded, please try again later"}}`, nil, zai, ReasonOverloaded, false, true},
		{"z.ai 1305 numeric code", 429, `{"error":{"code":1305,"message":"The service may be temporarily overloaded, please try again later"}}`, nil, zai, ReasonOverloaded, false, true},
		{"1305 elsewhere", 429, `{"error":{"code":"1305","message":"The service may be temporarily overloaded, please try again later"}}`, nil, ClassifyInput{BaseURL: "https://api.z.ai/api/paas/v4", Model: "glm-4.6"}, ReasonOverloaded, false, false},
		{"1305 on another model", 429, `{"error":{"code":"1305","message":"The service may be temporarily overloaded"}}`, nil, ClassifyInput{BaseURL: zai.BaseURL, Model: "qwen3-coder"}, ReasonOverloaded, false, false},
		{"z.ai ordinary rate limit", 429, `{"error":{"code":"1302","message":"Rate limit reached for requests"}}`, nil, zai, ReasonRateLimit, false, false},
		{"openrouter reasoning mandatory", 400, `{"error":{"message":"Reasoning is mandatory for this endpoint and cannot be disabled.","code":400,"metadata":{"provider_name":"OpenAI"}}}`, nil, ClassifyInput{}, ReasonReasoningMandatory, false, false},
		{"gemini thinking only", 400, `{"error":{"code":400,"message":"Budget 0 is invalid. This model only works in thinking mode.","status":"INVALID_ARGUMENT"}}`, nil, ClassifyInput{}, ReasonReasoningMandatory, false, false},
		{"content policy 400", 400, `{"error":{"message":"Your request was flagged by our safety system.","type":"invalid_request_error"}}`, nil, ClassifyInput{}, ReasonContentPolicyBlocked, false, false},
	}
	for _, c := range cases {
		var h http.Header
		if c.headers != nil {
			h = http.Header{}
			for k, v := range c.headers {
				h.Set(k, v)
			}
		}
		got := ClassifyWith(&APIError{Status: c.status, Body: c.body, Headers: h}, c.in)
		if got.Reason != c.reason || got.StructuredReset != c.reset || got.AdaptiveBackoff != c.slow {
			t.Errorf("%s: got %s reset=%v slow=%v, want %s reset=%v slow=%v", c.name, got.Reason, got.StructuredReset, got.AdaptiveBackoff, c.reason, c.reset, c.slow)
		}
		if c.reason == ReasonBilling && (got.Retryable || !got.ShouldRotateCredential || !got.ShouldFallback) {
			t.Errorf("%s: billing hints %+v", c.name, got)
		}
		if c.reason == ReasonReasoningMandatory && (got.Retryable || !got.ShouldFallback) {
			t.Errorf("%s: hints %+v", c.name, got)
		}
	}
}

func TestStatedContextLimit(t *testing.T) {
	cases := []struct {
		status        int
		body          string
		limit, prompt int
	}{
		{400, `{"error":{"message":"This model's maximum context length is 4000 tokens. However, your messages resulted in 14837 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`, 4000, 14837},
		{400, `{"error":{"message":"This endpoint's maximum context length is 32768 tokens. However, you requested about 42832 tokens (42832 of text input). Please reduce the length of either one, or use the \"middle-out\" transform to compress your prompt automatically.","code":400}}`, 32768, 42832},
		{400, `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 200251 tokens > 200000 maximum"},"request_id":"req_011CWdepJvA2D819tdYYq4h7"}`, 200000, 200251},
		{400, `{"type":"error","error":{"type":"invalid_request_error","message":"input length and ` + "`max_tokens`" + ` exceed context limit: 199759 + 8192 > 200000, decrease input length or ` + "`max_tokens`" + ` and try again"}}`, 200000, 199759},
		{400, `{"error":{"code":400,"message":"The input token count (1290432) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}`, 1048576, 1290432},
		{400, `{"error":{"code":400,"message":"request (17993 tokens) exceeds the available context size (16384 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":17993,"n_ctx":16384}}`, 16384, 17993},
		{400, `{"error":{"message":"Your input exceeds the context window of this model. Please adjust your input and try again.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}}`, 0, 0},
	}
	for _, c := range cases {
		got := Classify(&APIError{Status: c.status, Body: c.body})
		if got.Reason != ReasonContextOverflow || got.ContextLimit != c.limit || got.PromptTokens != c.prompt {
			t.Errorf("%s\n  got %s limit=%d prompt=%d, want limit=%d prompt=%d", c.body, got.Reason, got.ContextLimit, got.PromptTokens, c.limit, c.prompt)
		}
	}
}

func TestAdaptiveAndResetDelays(t *testing.T) {
	pol := RetryPolicy{MaxRetries: 3, BaseDelay: 2 * time.Second, MaxDelay: 60 * time.Second, RetryAfterCap: 600 * time.Second}
	slow := Classified{Reason: ReasonOverloaded, Retryable: true, AdaptiveBackoff: true}
	now := time.Unix(1_700_000_000, 0)
	want := []time.Duration{2 * time.Second, 4 * time.Second, 8 * time.Second, 30 * time.Second, 60 * time.Second, 90 * time.Second, 120 * time.Second, 120 * time.Second}
	for i, w := range want {
		if d, honoured, tooLong := RetryDelay(slow, i+1, nil, "", pol, 0, now); d != w || honoured || tooLong {
			t.Errorf("attempt %d: %s %v %v, want %s", i+1, d, honoured, tooLong, w)
		}
	}
	if d, _ := AdaptiveDelay(4, 0.999); d > 36*time.Second || d < 35*time.Second {
		t.Errorf("jitter of the 30 s step: %s", d)
	}
	capped := pol
	capped.RetryAfterCap = 45 * time.Second
	if d, _, tooLong := RetryDelay(slow, 6, nil, "", capped, 0, now); d != 45*time.Second || tooLong {
		t.Errorf("capped: %s %v", d, tooLong)
	}
	plain := Classified{Reason: ReasonOverloaded, Retryable: true}
	if d, _, _ := RetryDelay(plain, 5, nil, "", pol, 0, now); d != 32*time.Second {
		t.Errorf("an ordinary overload used the adaptive steps: %s", d)
	}
	rate := Classified{Reason: ReasonRateLimit, Retryable: true, StructuredReset: true}
	body := `{"error":{"type":"usage_limit_reached","resets_at":1700000120}}`
	if d, honoured, tooLong := RetryDelay(rate, 1, nil, body, pol, 0, now); d != 120*time.Second || !honoured || tooLong {
		t.Errorf("resets_at: %s %v %v", d, honoured, tooLong)
	}
	body = `{"error":{"type":"usage_limit_reached","resets_in_seconds":5400}}`
	if d, honoured, tooLong := RetryDelay(rate, 1, nil, body, pol, 0, now); d != 90*time.Minute || !honoured || !tooLong {
		t.Errorf("resets_in_seconds over the cap: %s %v %v", d, honoured, tooLong)
	}
}

func TestBodyRetryAfterIsNotAUsageReset(t *testing.T) {
	c := Classify(&APIError{Status: 429, Body: `{"error":{"message":"Rate limit exceeded","type":"rate_limit_error","retry_after":3}}`})
	if c.Reason != ReasonRateLimit || c.StructuredReset {
		t.Fatalf("%+v", c)
	}
}
