package gemini

import (
	"context"
	"reflect"
	"testing"

	"talaria/providers"
	"talaria/providers/providertest"
)

// TestMapFinishReason covers the documented finishReason values.
func TestMapFinishReason(t *testing.T) {
	for wire, want := range map[string]string{
		"": "", "STOP": "stop", "MAX_TOKENS": "length",
		"SAFETY": "content_filter", "RECITATION": "content_filter", "BLOCKLIST": "content_filter",
		"PROHIBITED_CONTENT": "content_filter", "SPII": "content_filter", "IMAGE_SAFETY": "content_filter",
		"MALFORMED_FUNCTION_CALL": "error", "UNEXPECTED_TOOL_CALL": "error", "OTHER": "error",
		"FINISH_REASON_UNSPECIFIED": "error", "LANGUAGE": "error", "SOMETHING_NEW": "error",
	} {
		if got := finishReasons.Map(wire); got != want {
			t.Errorf("finishReasons.Map(%q) = %q, want %q", wire, got, want)
		}
	}
}

// TestPlainAnswers covers a server that answers with a JSON document (one
// GenerateContentResponse, or the array streamGenerateContent returns
// without alt=sse) instead of an event stream, and bodies that are not one.
func TestPlainAnswers(t *testing.T) {
	one := `{"candidates":[{"content":{"parts":[{"text":"Hi"},{"functionCall":{"name":"f","args":{"a":1}}}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":100,"candidatesTokenCount":5,"cachedContentTokenCount":60},"modelVersion":"gemini-2.5-pro"}`
	jsonType := map[string]string{"Content-Type": "application/json"}
	for _, body := range []string{one, "[" + one + "]"} {
		srv, _ := providertest.Serve(t, providertest.WireReply{Body: []byte(body), Headers: jsonType})
		resp, err := newTestTransport(t, srv).Stream(context.Background(), providertest.SimpleRequest(), nil)
		if err != nil || resp.Content != "Hi" || len(resp.ToolCalls) != 1 || resp.ToolCalls[0].ID != "call_0" ||
			resp.FinishReason != "tool_calls" || resp.Usage.InputTokens != 40 || resp.Usage.CacheReadTokens != 60 {
			t.Errorf("%.20s…: %+v %v", body, resp, err)
		}
	}
	for _, bad := range []string{"{", `{"x":1}`, "[{", `{"error":{"code":500,"message":"boom"}}`} {
		srv, _ := providertest.Serve(t, providertest.WireReply{Body: []byte(bad), Headers: jsonType})
		if _, err := newTestTransport(t, srv).Stream(context.Background(), providertest.SimpleRequest(), nil); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

// TestReasoningEffort checks issue 18 item 4's mapping:
// generationConfig.thinkingConfig.thinkingBudget for thinking models, no
// budget without an effort, no thinkingConfig for other models.
func TestReasoningEffort(t *testing.T) {
	for _, tc := range []struct {
		model, effort string
		want          any
	}{
		{"gemini-2.5-flash", "", map[string]any{"includeThoughts": true}},
		{"gemini-2.5-flash", "low", map[string]any{"includeThoughts": true, "thinkingBudget": float64(1024)}},
		{"gemini-2.5-pro", "high", map[string]any{"includeThoughts": true, "thinkingBudget": float64(24576)}},
		{"gemini-3-pro-preview", "medium", map[string]any{"includeThoughts": true, "thinkingBudget": float64(8192)}},
		{"gemini-2.0-flash", "high", nil},
	} {
		srv, reqs := providertest.Serve(t, providertest.WireReply{Body: providertest.ReadFixture(t, "text_thoughts.sse")})
		req := providertest.SimpleRequest()
		req.Model, req.ReasoningEffort = tc.model, tc.effort
		if _, err := newTestTransport(t, srv).Stream(context.Background(), req, nil); err != nil {
			t.Fatal(err)
		}
		body := (<-reqs).Body
		var got any
		if gc, ok := body["generationConfig"].(map[string]any); ok {
			got = gc["thinkingConfig"]
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s/%q: thinkingConfig %v, want %v", tc.model, tc.effort, got, tc.want)
		}
	}
}

// TestEmpty keeps the empty-response rule visible: a response with nothing
// in it is Empty, one with text is not.
func TestEmpty(t *testing.T) {
	if !(&providers.Response{}).Empty() || (&providers.Response{Content: "x"}).Empty() {
		t.Error("Response.Empty")
	}
}
