package gemini

import (
	"context"
	"testing"

	"talaria/providers"
	"talaria/providers/providertest"
)

// TestHTTPErrors checks Gemini error bodies (google.rpc.Status, the object
// form and wire.md §4.4's array form) against the APIError fields,
// including the synthetic Retry-After from RetryInfo.
func TestHTTPErrors(t *testing.T) {
	tests := []struct {
		name       string
		status     int
		headers    map[string]string
		body       string
		msg        string
		code, typ  string
		retryAfter string
	}{
		{
			name: "429 with RetryInfo and QuotaFailure", status: 429,
			body: `{
  "error": {
    "code": 429,
    "message": "You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.",
    "status": "RESOURCE_EXHAUSTED",
    "details": [
      {"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [{"quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests", "quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier", "quotaDimensions": {"location": "global", "model": "gemini-2.5-pro"}, "quotaValue": "5"}]},
      {"@type": "type.googleapis.com/google.rpc.Help", "links": [{"description": "Learn more about Gemini API quotas", "url": "https://ai.google.dev/gemini-api/docs/rate-limits"}]},
      {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "29.5s"}
    ]
  }
}`,
			msg:  "You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.",
			code: "RESOURCE_EXHAUSTED", retryAfter: "30",
		},
		{
			name: "429 RetryInfo but a real Retry-After header wins", status: 429,
			headers: map[string]string{"Retry-After": "7"},
			body:    `{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"30s"}]}}`,
			msg:     "Resource has been exhausted (e.g. check quota).", code: "RESOURCE_EXHAUSTED", retryAfter: "7",
		},
		{
			name: "array body (wire.md §4.4)", status: 429,
			body: "[{\n  \"error\": {\n    \"code\": 429,\n    \"message\": \"Resource has been exhausted (e.g. check quota).\",\n    \"status\": \"RESOURCE_EXHAUSTED\"\n  }\n}\n]",
			msg:  "Resource has been exhausted (e.g. check quota).", code: "RESOURCE_EXHAUSTED",
		},
		{
			name: "503 overloaded (wire.md §4.4)", status: 503,
			body: `{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}`,
			msg:  "The model is overloaded. Please try again later.", code: "UNAVAILABLE",
		},
		{
			name: "400 invalid key with ErrorInfo", status: 400,
			body: `{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com","metadata":{"service":"generativelanguage.googleapis.com"}}]}}`,
			msg:  "API key not valid. Please pass a valid API key.", code: "INVALID_ARGUMENT", typ: "API_KEY_INVALID",
		},
		{
			name: "400 context overflow", status: 400,
			body: `{"error":{"code":400,"message":"The input token count (1196265) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}`,
			msg:  "The input token count (1196265) exceeds the maximum number of tokens allowed (1048576).", code: "INVALID_ARGUMENT", typ: providers.CodeContextOverflow,
		},
		{
			name: "404 model", status: 404,
			body: `{"error":{"code":404,"message":"models/gemini-9-ultra is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.","status":"NOT_FOUND"}}`,
			msg:  "models/gemini-9-ultra is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.",
			code: "NOT_FOUND",
		},
		{
			name: "non-JSON 502", status: 502, body: "<html><title>502 Bad Gateway</title></html>",
			msg: "<html><title>502 Bad Gateway</title></html>",
		},
		{
			name: "code without status or message", status: 500, body: `{"error":{"code":500}}`,
			msg: "the server reported an error without a message", code: "500",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := map[string]string{"Content-Type": "application/json; charset=UTF-8"}
			for k, v := range tc.headers {
				h[k] = v
			}
			srv, _ := providertest.Serve(t, providertest.WireReply{Status: tc.status, Headers: h, Body: []byte(tc.body)})
			resp, err := newTestTransport(t, srv).Stream(context.Background(), providertest.SimpleRequest(), nil)
			if resp != nil {
				t.Errorf("response %+v with an HTTP error", resp)
			}
			ae := providertest.AsAPIError(t, err)
			if ae.Status != tc.status || ae.Message != tc.msg || ae.Code != tc.code || ae.Type != tc.typ || ae.Body != tc.body || ae.MidStream || ae.Provider != "gemini" {
				t.Errorf("got %+v", ae)
			}
			if got := ae.Headers.Get("Retry-After"); got != tc.retryAfter {
				t.Errorf("Retry-After %q, want %q", got, tc.retryAfter)
			}
		})
	}
}

// TestConnectError: a refused connection is an APIError without status.
func TestConnectError(t *testing.T) {
	srv := providertest.StartWire(t, providertest.WireReply{})
	providertest.CheckUnreachable(t, srv, newTestTransport(t, srv.Server))
}

// TestNew covers endpoint defaults and refusals.
func TestNew(t *testing.T) {
	env := map[string]string{EnvGoogleAPIKey: "AIza-google"}
	getenv := func(k string) string { return env[k] }
	tr, err := newTransport(providers.Endpoint{Provider: "gemini", Model: "models/gemini-2.5-flash"}, getenv)
	if err != nil {
		t.Fatal(err)
	}
	if tr.baseURL != DefaultBaseURL || tr.apiKey != "AIza-google" {
		t.Errorf("transport %+v", tr)
	}
	m, _ := tr.model(providers.Request{})
	if got := tr.streamURL(m); got != DefaultBaseURL+"/models/gemini-2.5-flash:streamGenerateContent?alt=sse" {
		t.Errorf("streamURL %s", got)
	}
	env[EnvAPIKey] = "AIza-gemini"
	tr, err = newTransport(providers.Endpoint{BaseURL: "https://generativelanguage.googleapis.com/v1beta/openai/"}, getenv)
	if err != nil || tr.baseURL != DefaultBaseURL || tr.apiKey != "AIza-gemini" {
		t.Errorf("openai base: %v %+v", err, tr)
	}
	noEnv := func(string) string { return "" }
	if _, err := newTransport(providers.Endpoint{}, noEnv); err == nil {
		t.Error("no key for googleapis.com accepted")
	}
	if _, err := newTransport(providers.Endpoint{BaseURL: "::"}, noEnv); err == nil {
		t.Error("bad base_url accepted")
	}
	tr, err = newTransport(providers.Endpoint{BaseURL: "http://127.0.0.1:9/v1beta"}, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Stream(context.Background(), providertest.SimpleRequest(), nil); err == nil || providertest.AsAPIError(t, err).Message == "" {
		t.Errorf("no model: %v", err)
	}
	if _, err := New(providers.Endpoint{BaseURL: "http://x", Model: "m"}); err != nil {
		t.Errorf("New: %v", err)
	}
}
