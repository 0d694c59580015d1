package providers

import (
	"reflect"
	"testing"
)

// TestParseErrorBody checks the one error-body parser on the real shapes
// every wire meets, and that documents which are not error bodies are not
// taken for one.
func TestParseErrorBody(t *testing.T) {
	tests := []struct {
		name, body string
		ok         bool
		want       ErrorBody // compared on Message, Type, Code, Status, Upstream, Raw
	}{
		{"anthropic", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_1"}`,
			true, ErrorBody{Message: "Overloaded", Type: "overloaded_error"}},
		{"anthropic spend limit", `{"type":"error","error":{"type":"rate_limit_error","message":"spend","details":{"error_code":"enforced_spend_limit_reached"}}}`,
			true, ErrorBody{Message: "spend", Type: "rate_limit_error", Code: "enforced_spend_limit_reached"}},
		{"openai", `{"error":{"message":"Rate limit reached","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`,
			true, ErrorBody{Message: "Rate limit reached", Type: "tokens", Code: "rate_limit_exceeded"}},
		{"openrouter upstream", `{"error":{"message":"Provider returned error","code":429,"metadata":{"raw":"slow down","provider_name":"BaseTen"}}}`,
			true, ErrorBody{Message: "Provider returned error", Code: "429", Upstream: "BaseTen", Raw: "slow down"}},
		{"gemini array", `[{"error":{"code":429,"message":"Resource has been exhausted","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"30s"}]}}]`,
			true, ErrorBody{Message: "Resource has been exhausted", Code: "429", Status: "RESOURCE_EXHAUSTED"}},
		{"ollama native", `{"error":"model 'x' not found"}`, true, ErrorBody{Message: "model 'x' not found"}},
		{"old vllm flat", `{"object":"error","message":"bad","type":"BadRequestError","code":400}`,
			true, ErrorBody{Message: "bad", Type: "BadRequestError", Code: "400"}},
		{"aws", `{"__type":"com.amazon.coral.validate#ValidationException","Message":"Input is too long"}`,
			true, ErrorBody{Message: "Input is too long", Type: "com.amazon.coral.validate#ValidationException"}},
		{"responses error event", `{"type":"error","code":"rate_limit_exceeded","message":"slow","param":null}`,
			true, ErrorBody{Message: "slow", Code: "rate_limit_exceeded"}},
		{"responses failed", `{"type":"response.failed","response":{"id":"r","status":"failed","error":{"code":"server_error","message":"boom"}}}`,
			true, ErrorBody{Message: "boom", Code: "server_error"}},
		{"html page", `<html><title>502 Bad Gateway</title></html>`, false, ErrorBody{}},
		{"anthropic message", `{"id":"msg_1","type":"message","role":"assistant","content":[],"stop_reason":"end_turn"}`, false, ErrorBody{}},
		{"chat completion", `{"id":"c","object":"chat.completion","choices":[{"message":{"role":"assistant","content":"hi"}}],"error":null}`, false, ErrorBody{}},
		{"garbage", `{"error":`, false, ErrorBody{}},
	}
	for _, tc := range tests {
		eb, ok := ParseErrorBody([]byte(tc.body))
		if ok != tc.ok {
			t.Errorf("%s: ok = %v, want %v", tc.name, ok, tc.ok)
			continue
		}
		if !ok {
			continue
		}
		got := ErrorBody{Message: eb.Message, Type: eb.Type, Code: eb.Code, Status: eb.Status, Upstream: eb.Upstream, Raw: eb.Raw}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, got, tc.want)
		}
	}
	if eb, _ := ParseErrorBody([]byte(`[{"error":{"code":429,"message":"m","details":[{"a":1},{"b":2}]}}]`)); len(eb.Details) != 2 {
		t.Errorf("details %v", eb.Details)
	}
}

// TestClassifyReadsTheWireParse checks that Classify reads the parse a wire
// made with ParseBody, and parses again only when Body changed after it.
func TestClassifyReadsTheWireParse(t *testing.T) {
	body := []byte(`{"error":{"message":"Provider returned error","code":402,"metadata":{"raw":"{\"error\":{\"message\":\"Insufficient credits\",\"code\":\"insufficient_quota\"}}","provider_name":"OpenAI"}}}`)
	parsed := &APIError{Provider: "openrouter", Status: 402}
	parsed.ParseBody(body)
	fresh := &APIError{Provider: "openrouter", Status: 402, Body: string(body)}
	if a, b := gather(parsed), gather(fresh); !reflect.DeepEqual(a, b) || a.upstream != "OpenAI" || !a.hasCode("insufficient_quota") {
		t.Errorf("cached parse %+v\nfresh parse %+v", a, b)
	}
	if Classify(parsed) != Classify(fresh) {
		t.Errorf("Classify differs: %+v vs %+v", Classify(parsed), Classify(fresh))
	}
	// A Body replaced after ParseBody is parsed again, not read stale.
	parsed.Body = `{"error":{"message":"context too long","code":"context_length_exceeded"}}`
	if ev := gather(parsed); !ev.hasCode("context_length_exceeded") || ev.upstream != "" {
		t.Errorf("stale parse used: %+v", ev)
	}
}
