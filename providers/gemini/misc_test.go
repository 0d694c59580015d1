package gemini

import (
	"encoding/json"
	"errors"
	"testing"

	"talaria/providers"
)

// TestMapFinishReason covers the documented finishReason values.
func TestMapFinishReason(t *testing.T) {
	tr := &geminiTransport{}
	for wire, want := range map[string]string{
		"": "", "STOP": "stop", "MAX_TOKENS": "length",
		"SAFETY": "content_filter", "RECITATION": "content_filter", "BLOCKLIST": "content_filter",
		"PROHIBITED_CONTENT": "content_filter", "SPII": "content_filter", "IMAGE_SAFETY": "content_filter",
		"MALFORMED_FUNCTION_CALL": "error", "UNEXPECTED_TOOL_CALL": "error", "OTHER": "error",
		"FINISH_REASON_UNSPECIFIED": "error", "LANGUAGE": "error", "SOMETHING_NEW": "error",
	} {
		if got := tr.MapFinishReason(wire); got != want {
			t.Errorf("MapFinishReason(%q) = %q, want %q", wire, got, want)
		}
	}
}

// TestNormalizeAndCacheStats covers the pure entry points on whole bodies.
func TestNormalizeAndCacheStats(t *testing.T) {
	tr := &geminiTransport{ep: providers.Endpoint{Provider: "gemini"}}
	one := `{"candidates":[{"content":{"parts":[{"text":"Hi"},{"functionCall":{"name":"f","args":{"a":1}}}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":100,"candidatesTokenCount":5,"cachedContentTokenCount":60},"modelVersion":"gemini-2.5-pro"}`
	for _, raw := range []any{[]byte(one), json.RawMessage(one), one, "[" + one + "]"} {
		resp, err := tr.NormalizeResponse(raw)
		if err != nil || resp.Content != "Hi" || len(resp.ToolCalls) != 1 || resp.ToolCalls[0].ID != "call_0" ||
			resp.FinishReason != "tool_calls" || resp.Usage.InputTokens != 40 || resp.Usage.CacheReadTokens != 60 {
			t.Errorf("NormalizeResponse(%T): %+v %v", raw, resp, err)
		}
		if r, w := tr.CacheStats(raw); r != 60 || w != 0 {
			t.Errorf("CacheStats = %d, %d", r, w)
		}
	}
	for _, bad := range []any{42, "{", `{"x":1}`, "[{", `{"error":{"code":500,"message":"boom"}}`} {
		if _, err := tr.NormalizeResponse(bad); err == nil {
			t.Errorf("NormalizeResponse(%v) succeeded", bad)
		}
		if r, _ := tr.CacheStats(bad); r != 0 {
			t.Errorf("CacheStats(%v) = %d", bad, r)
		}
	}
	if err := tr.ValidateResponse(&providers.Response{}); !errors.Is(err, ErrEmptyResponse) {
		t.Errorf("ValidateResponse(empty) = %v", err)
	}
	if err := tr.ValidateResponse(&providers.Response{Content: "x"}); err != nil {
		t.Errorf("ValidateResponse = %v", err)
	}
}
