package providers

import (
	"net/http"
	"testing"
)

// wireCase is one real error response from reference/wire.md §4 (bodies
// verbatim; "constructed" marks envelopes wire.md itself builds from the
// documented fields).
type wireCase struct {
	name      string
	status    int
	headers   map[string]string
	body      string
	midStream bool
	// code/typ are what a transport would have parsed, when it parses.
	code, typ string

	reason    FailoverReason
	retryable bool
	compress  bool
	rotate    bool
	fallback  bool
}

func (w wireCase) apiError() *APIError {
	var h http.Header
	if w.headers != nil {
		h = http.Header{}
		for k, v := range w.headers {
			h.Set(k, v)
		}
	}
	return &APIError{Provider: "test", Status: w.status, Headers: h, Body: w.body, Code: w.code, Type: w.typ, MidStream: w.midStream}
}

// wireCases returns every error body of wire.md §4 (plus the mid-stream
// shapes of §1.6 and §2.7) with its expected classification.
func wireCases() []wireCase {
	return []wireCase{
		// 4.1 OpenAI
		{name: "openai 429 TPM rate limit", status: 429,
			body:   `{'error': {'message': 'Rate limit reached for gpt-4 in organization org-********** on tokens per min (TPM): Limit 10000, Used 9348, Requested 5086. Please try again in 26.604s. Visit https://platform.openai.com/account/rate-limits to learn more.', 'type': 'tokens', 'param': None, 'code': 'rate_limit_exceeded'}}`,
			reason: ReasonRateLimit, retryable: true, rotate: true, fallback: true},
		{name: "openai 429 rate limit json 174ms", status: 429, code: "rate_limit_exceeded", typ: "requests",
			body:   `{"error":{"message":"Rate limit reached for gpt-4o in organization org-abc on requests per min (RPM): Limit 500, Used 500, Requested 1. Please try again in 174ms.","type":"requests","param":null,"code":"rate_limit_exceeded"}}`,
			reason: ReasonRateLimit, retryable: true, rotate: true, fallback: true},
		{name: "openai 429 request too large for TPM", status: 429,
			body:   `'Request too large for gpt-4o in organization org-… on tokens per min (TPM): Limit 30000, Requested 36278. The input or output tokens must be reduced in order to run successfully. Visit https://platform.openai.com/account/rate-limits to learn more.', 'type': 'tokens', 'param': None, 'code': 'rate_limit_exceeded'`,
			reason: ReasonPayloadTooLarge, compress: true},
		{name: "openai 429 insufficient_quota", status: 429,
			body:   `{"error":{"message":"You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`,
			reason: ReasonBilling, rotate: true, fallback: true},
		{name: "openai 400 context (constructed envelope)", status: 400,
			body:   `{"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 14837 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`,
			reason: ReasonContextOverflow, compress: true},
		{name: "openai 400 context older message", status: 400, typ: "invalid_request_error",
			body:   `{"error":{"message":"This model's maximum context length is 4097 tokens. However, you requested 4268 tokens (4012 in the messages, 256 in the completion). Please reduce the length of the messages or completion.","type":"invalid_request_error","param":"messages","code":null}}`,
			reason: ReasonContextOverflow, compress: true},
		{name: "openai 400 responses context window", status: 400,
			body:   `{"error":{"message":"Your input exceeds the context window of this model. Please adjust your input and try again.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}}`,
			reason: ReasonContextOverflow, compress: true},
		{name: "openai 401 invalid key", status: 401,
			body:    `{"error":{"message":"Incorrect API key provided: sk-VKMIs***…wjh3. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
			headers: map[string]string{"x-should-retry": "false"},
			reason:  ReasonAuth, rotate: true, fallback: true},
		{name: "openai 404 model", status: 404,
			body:   "{'error': {'message': 'The model `gpt-4o-2024-05-13` does not exist or you do not have access to it.', 'type': 'invalid_request_error', 'param': None, 'code': 'model_not_found'}}",
			reason: ReasonModelNotFound, fallback: true},
		{name: "openai 500", status: 500,
			body:   `{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}`,
			reason: ReasonServerError, retryable: true, fallback: true},
		{name: "openai 503 overloaded", status: 503,
			body:   `{"error":{"message":"That model is currently overloaded with other requests. You can retry your request, or contact us through our help center at help.openai.com if the error persists. (Please include the request ID 500d9fff2057e4af93a280f67002c342 in your message.)","type":"server_error","param":null,"code":null}}`,
			reason: ReasonOverloaded, retryable: true, fallback: true},
		{name: "openai 429 engine overloaded", status: 429,
			body:   `{"error":{"message":"The engine is currently overloaded, please try again later","type":"server_error","param":null,"code":null}}`,
			reason: ReasonOverloaded, retryable: true, fallback: true},
		{name: "openai 500 x-should-retry false", status: 500,
			headers: map[string]string{"x-should-retry": "false"},
			body:    `{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}`,
			reason:  ReasonServerError, fallback: true},

		// 4.2 Anthropic
		{name: "anthropic 400 prompt too long", status: 400,
			body:   `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 200251 tokens > 200000 maximum"},"request_id":"req_011CWdepJvA2D819tdYYq4h7"}`,
			reason: ReasonContextOverflow, compress: true},
		{name: "anthropic 400 input plus max_tokens", status: 400,
			body:   "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"input length and `max_tokens` exceed context limit: 199759 + 8192 > 200000, decrease input length or `max_tokens` and try again\"}}",
			reason: ReasonContextOverflow, compress: true},
		{name: "anthropic 400 credit balance", status: 400,
			body:   `{"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."},"request_id":"req_011CbrFTcXhtiMzr3s6EocF7"}`,
			reason: ReasonBilling, rotate: true, fallback: true},
		{name: "anthropic 413", status: 413,
			body:   `{"error":{"type":"request_too_large","message":"Request exceeds the maximum size"}}`,
			reason: ReasonPayloadTooLarge, compress: true},
		{name: "anthropic 429 rate limit", status: 429, headers: map[string]string{"retry-after": "17"},
			body:   `{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization (d3f27ff7-9afe-4ee2-9645-76ecfc73c2b7) of 40,000 input tokens per minute. For details, refer to: https://docs.anthropic.com/en/api/rate-limits. You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later. You may also contact sales at https://www.anthropic.com/contact-sales to discuss your options for a rate limit increase."}}`,
			reason: ReasonRateLimit, retryable: true, rotate: true, fallback: true},
		{name: "anthropic 429 spend cap (constructed)", status: 429,
			body:   `{"type":"error","error":{"type":"rate_limit_error","message":"You have reached your monthly spend limit.","details":{"error_code":"enforced_spend_limit_reached"}}}`,
			reason: ReasonBilling, rotate: true, fallback: true},
		{name: "anthropic 529", status: 529,
			headers: map[string]string{"content-type": "application/json", "request-id": "req_01RCc7MbLyQNtGKzBTv8VCep", "x-should-retry": "true", "content-length": "75"},
			body:    `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
			reason:  ReasonOverloaded, retryable: true, fallback: true},
		{name: "anthropic 401", status: 401,
			body:   `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`,
			reason: ReasonAuth, rotate: true, fallback: true},
		{name: "anthropic 403 revoked", status: 403,
			body:   `{"type":"error","error":{"type":"permission_error","message":"OAuth token has been revoked."}}`,
			reason: ReasonAuthPermanent, rotate: true, fallback: true},
		{name: "anthropic mid-stream overloaded", midStream: true,
			body:   `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
			reason: ReasonOverloaded, retryable: true, fallback: true},
		{name: "anthropic-sdk-go #200 mid-stream", status: 200, midStream: true,
			body:   `{"type":"error","error":{"details":null,"type":"overloaded_error","message":"Overloaded"} }`,
			reason: ReasonOverloaded, retryable: true, fallback: true},

		// 4.3 OpenRouter
		{name: "openrouter upstream 429", status: 429,
			body:   `{"error":{"message":"Provider returned error","code":429,"metadata":{"raw":"z-ai/glm-5.3-flash is temporarily rate-limited upstream. Please retry shortly, or add your own key to accumulate your rate limits: ...","provider_name":"BaseTen","limit_source":"upstream_provider_shared_pool","remedy_hint":"Retry shortly, add your own provider key, or route to another provider"}}}`,
			reason: ReasonUpstreamRateLimit, retryable: true, fallback: true},
		{name: "openrouter mid-stream provider disconnected", midStream: true,
			body:   `{"id":"cmpl-abc123","object":"chat.completion.chunk","created":1234567890,"model":"gpt-3.5-turbo","provider":"openai","error":{"code":"server_error","message":"Provider disconnected"},"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}]}`,
			reason: ReasonServerError, retryable: true, fallback: true},
		{name: "openrouter 400 overflow (constructed envelope)", status: 400,
			body:   `{"error":{"code":400,"message":"This endpoint's maximum context length is 32768 tokens. However, you requested about 42832 tokens (42832 of text input). Please reduce the length of either one, or use the \"middle-out\" transform to compress your prompt automatically."}}`,
			reason: ReasonContextOverflow, compress: true},
		{name: "openrouter 402 credits (constructed)", status: 402,
			body:   `{"error":{"code":402,"message":"Insufficient credits. Add more using https://openrouter.ai/credits"}}`,
			reason: ReasonBilling, rotate: true, fallback: true},

		// 4.4 Gemini
		{name: "gemini 429 array body", status: 429,
			body:   "[{\n  \"error\": {\n    \"code\": 429,\n    \"message\": \"Resource has been exhausted (e.g. check quota).\",\n    \"status\": \"RESOURCE_EXHAUSTED\"\n  }\n}\n]",
			reason: ReasonRateLimit, retryable: true, rotate: true, fallback: true},
		{name: "gemini 503", status: 503,
			body:   `{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}`,
			reason: ReasonOverloaded, retryable: true, fallback: true},
		{name: "vertex 429", status: 429,
			body:   `{"error":{"code":429,"message":"Resource exhausted. Please refer to https://cloud.google.com/vertex-ai/generative-ai/docs/error-code-429 for more details.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"rateLimitExceeded"}]}}`,
			reason: ReasonRateLimit, retryable: true, rotate: true, fallback: true},
		{name: "gemini 429 quota wording", status: 429,
			body:   `{"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details.","status":"RESOURCE_EXHAUSTED"}}`,
			reason: ReasonRateLimit, retryable: true, rotate: true, fallback: true},

		{name: "gemini 400 bad key (constructed)", status: 400,
			body:   `{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID"}]}}`,
			reason: ReasonAuth, rotate: true, fallback: true},

		// 4.5 Ollama
		{name: "ollama 404 pull (constructed)", status: 404,
			body:   `{"error":{"message":"model \"llama3\" not found, try pulling it first","type":"not_found_error","param":null,"code":null}}`,
			reason: ReasonModelNotFound, fallback: true},
		{name: "ollama native 404", status: 404, body: `{"error":"model 'x' not found"}`,
			reason: ReasonModelNotFound, fallback: true},
		{name: "ollama 400 no tools", status: 400,
			body:   `{"error":{"message":"registry.ollama.ai/library/gemma3:270m does not support tools","type":"invalid_request_error","param":null,"code":null}}`,
			reason: ReasonFormatError, fallback: true},
		{name: "ollama 400 no thinking", status: 400,
			body:   `{"error":{"message":"\"qwen2.5:7b\" does not support thinking","type":"invalid_request_error","param":null,"code":null}}`,
			reason: ReasonFormatError, fallback: true},
		{name: "ollama 503 busy", status: 503,
			body:   `{"error":{"message":"server busy, please try again.  maximum pending requests exceeded","type":"api_error","param":null,"code":null}}`,
			reason: ReasonOverloaded, retryable: true, fallback: true},
		{name: "ollama 499 canceled", status: 499,
			body:   `{"error":{"message":"request canceled","type":"api_error","param":null,"code":null}}`,
			reason: ReasonTimeout, retryable: true, fallback: true},

		// 4.6 llama.cpp
		{name: "llama.cpp 400 context size", status: 400,
			body:   `{"error":{"code":400,"message":"request (17993 tokens) exceeds the available context size (16384 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":17993,"n_ctx":16384}}`,
			reason: ReasonContextOverflow, compress: true},
		{name: "llama.cpp 400 grammar", status: 400,
			body:   `{"error":{"code":400,"message":"Failed to initialize samplers: failed to parse grammar","type":"invalid_request_error"}}`,
			reason: ReasonLlamaCppGrammar},
		{name: "llama.cpp 500 jinja", status: 500,
			body:   `{"error":{"code":500,"message":"tools param requires --jinja flag","type":"server_error"}}`,
			reason: ReasonFormatError, fallback: true},
		{name: "llama.cpp 500 no mmproj", status: 500,
			body:   `{"error":{"code":500,"message":"image input is not supported - hint: if this is unexpected, you may need to provide the mmproj","type":"server_error"}}`,
			reason: ReasonMultimodalToolContent, fallback: true},
		{name: "llama.cpp 503 loading", status: 503,
			body:   `{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}`,
			reason: ReasonOverloaded, retryable: true, fallback: true},

		// 1.6 mid-stream shapes on OpenAI-compatible servers
		{name: "go-openai mid-stream server_ error", midStream: true,
			body:   `{"error":{"message":"The server had an error while processing your request. Sorry about that!", "type":"server_ error", "param":null,"code":null}}`,
			reason: ReasonUnknown, retryable: true, fallback: true},
		{name: "old vLLM object error (constructed)", midStream: true,
			body:   `{"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.","type":"BadRequestError","param":null,"code":400}`,
			reason: ReasonContextOverflow, compress: true},
	}
}

func TestClassifyWireBodies(t *testing.T) {
	for _, w := range wireCases() {
		t.Run(w.name, func(t *testing.T) {
			c := Classify(w.apiError())
			if c.Reason != w.reason {
				t.Fatalf("reason = %q, want %q (%+v)", c.Reason, w.reason, c)
			}
			got := [4]bool{c.Retryable, c.ShouldCompress, c.ShouldRotateCredential, c.ShouldFallback}
			want := [4]bool{w.retryable, w.compress, w.rotate, w.fallback}
			if got != want {
				t.Errorf("retry/compress/rotate/fallback = %v, want %v", got, want)
			}
			if c.Status != w.status {
				t.Errorf("status = %d, want %d", c.Status, w.status)
			}
			if c.Message == "" || len(c.Message) > maxClassifiedMessage+len("…") {
				t.Errorf("message length %d", len(c.Message))
			}
		})
	}
}

func TestClassifyDetails(t *testing.T) {
	var up, quota wireCase
	for _, w := range wireCases() {
		switch w.name {
		case "openrouter upstream 429":
			up = w
		case "openai 429 insufficient_quota":
			quota = w
		}
	}
	c := ClassifyWith(up.apiError(), ClassifyInput{Provider: "openrouter", Model: "z-ai/glm-5.3-flash"})
	if c.UpstreamProvider != "BaseTen" || c.Provider != "openrouter" || c.Model != "z-ai/glm-5.3-flash" {
		t.Errorf("upstream details: %+v", c)
	}
	if c := Classify(quota.apiError()); c.Code != "insufficient_quota" {
		t.Errorf("code = %q", c.Code)
	}
	// The 429 billing rule yields to a reset signal: with Retry-After the
	// quota wording is a throttle.
	quota.body = `{"error":{"message":"Usage limit reached for this key.","type":"requests"}}`
	if c := Classify(quota.apiError()); c.Reason != ReasonBilling {
		t.Errorf("usage limit without reset = %s", c.Reason)
	}
	quota.headers = map[string]string{"Retry-After": "30"}
	if c := Classify(quota.apiError()); c.Reason != ReasonRateLimit {
		t.Errorf("usage limit with Retry-After = %s", c.Reason)
	}
	// A long message is cut to 500 bytes.
	long := &APIError{Status: 500, Message: string(make([]byte, 2000))}
	if c := Classify(long); len(c.Message) > maxClassifiedMessage+len("…") {
		t.Errorf("message not truncated: %d", len(c.Message))
	}
}
