package anthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"talaria/providers"
	"talaria/providers/providertest"
)

// TestReplayRoundTrip streams a response with thinking, redacted thinking,
// text and tool calls, sends it back with its tool results, and checks the
// next request body: system parameter, thinking blocks verbatim with their
// signature in the original order, tool results grouped into one user
// message, cache_control breakpoints.
func TestReplayRoundTrip(t *testing.T) {
	first := providertest.FixtureServer(t, "thinking_tools.sse")
	resp, err := newTestTransport(t, first).Stream(context.Background(), providertest.SimpleRequest(), nil)
	if err != nil {
		t.Fatal(err)
	}
	conv := []providers.Message{
		{Role: providers.RoleSystem, Content: "You are talaria."},
		{Role: providers.RoleUser, Content: "run the tests"},
		resp.Message(),
		{Role: providers.RoleTool, ToolCallID: "toolu_01A09q90qw90lq917835lq9", Content: "a.go\nb.go"},
		{Role: providers.RoleTool, ToolCallID: "toolu_01B19r91rx91mr928946mr0", Content: ""},
		{Role: providers.RoleUser, Content: "also run vet"},
	}
	srv := providertest.FixtureServer(t, "text.sse")
	if _, err := newTestTransport(t, srv).Stream(context.Background(), providers.Request{Messages: conv}, nil); err != nil {
		t.Fatal(err)
	}
	body := srv.TakeRequest(t).Body

	wantSystem := []any{map[string]any{"type": "text", "text": "You are talaria.", "cache_control": map[string]any{"type": "ephemeral"}}}
	if !reflect.DeepEqual(body["system"], wantSystem) {
		t.Errorf("system %v, want %v", body["system"], wantSystem)
	}
	msgs := providertest.Objects(body["messages"])
	if len(msgs) != 3 || msgs[0]["role"] != "user" || msgs[1]["role"] != "assistant" || msgs[2]["role"] != "user" {
		t.Fatalf("messages %v, want user, assistant, user", msgs)
	}
	asst := providertest.Objects(msgs[1]["content"])
	var types []string
	for _, b := range asst {
		types = append(types, b["type"].(string))
	}
	if want := []string{"thinking", "redacted_thinking", "text", "tool_use", "tool_use"}; !reflect.DeepEqual(types, want) {
		t.Fatalf("assistant blocks %v, want %v", types, want)
	}
	wantThinking := map[string]any{"type": "thinking", "thinking": "The user wants the tests run. I should list the files first.", "signature": "RXVTaWdGaXh0dXJlMDE="}
	if !reflect.DeepEqual(asst[0], wantThinking) {
		t.Errorf("thinking block %v, want %v (verbatim, no cache_control)", asst[0], wantThinking)
	}
	if asst[1]["data"] != "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj" {
		t.Errorf("redacted block %v", asst[1])
	}
	if !reflect.DeepEqual(asst[3]["input"], map[string]any{"path": "providers/", "depth": float64(2)}) || !reflect.DeepEqual(asst[4]["input"], map[string]any{}) {
		t.Errorf("tool inputs %v / %v", asst[3]["input"], asst[4]["input"])
	}
	results := providertest.Objects(msgs[2]["content"])
	if len(results) != 3 || results[0]["type"] != "tool_result" || results[1]["type"] != "tool_result" || results[2]["type"] != "text" {
		t.Fatalf("last user message %v, want two tool_results then the text", results)
	}
	if results[0]["tool_use_id"] != "toolu_01A09q90qw90lq917835lq9" || results[1]["tool_use_id"] != "toolu_01B19r91rx91mr928946mr0" {
		t.Errorf("tool_use_ids %v %v", results[0]["tool_use_id"], results[1]["tool_use_id"])
	}
	if got := fmt.Sprint(results[1]["content"]); !strings.Contains(got, providers.PlaceholderToolOutput) {
		t.Errorf("empty tool output sent as %v", got)
	}
	// Breakpoints: the system prompt and the last cacheable block of each of
	// the three messages.
	if n := countCacheControl(body); n != 4 {
		t.Errorf("%d cache_control markers, want 4", n)
	}
	for _, b := range []map[string]any{providertest.Objects(msgs[0]["content"])[0], asst[4], results[2]} {
		if b["cache_control"] == nil {
			t.Errorf("block %v has no cache_control", b)
		}
	}
}

// TestCacheControlPlacement checks the breakpoint budget on long
// conversations, with and without a system prompt.
func TestCacheControlPlacement(t *testing.T) {
	for _, withSystem := range []bool{true, false} {
		var conv []providers.Message
		if withSystem {
			conv = append(conv, providers.Message{Role: providers.RoleSystem, Content: "sys"})
		}
		for i := range 10 {
			conv = append(conv,
				providers.Message{Role: providers.RoleUser, Content: fmt.Sprintf("q%d", i)},
				providers.Message{Role: providers.RoleAssistant, Content: fmt.Sprintf("a%d", i)})
		}
		tr := &transport{ep: providers.Endpoint{Provider: "anthropic", Model: "claude-x"}}
		p, err := tr.buildRequest(providers.Request{Messages: conv})
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(p)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		if n := countCacheControl(body); n != maxCacheBreakpoints {
			t.Errorf("system=%v: %d markers, want %d", withSystem, n, maxCacheBreakpoints)
		}
		msgs := providertest.Objects(body["messages"])
		marked := 0
		for i, m := range msgs {
			if providertest.Objects(m["content"])[0]["cache_control"] != nil {
				marked++
				if want := len(msgs) - maxCacheBreakpoints; withSystem && i <= want || !withSystem && i < want {
					t.Errorf("system=%v: message %d of %d marked; only the latest should be", withSystem, i, len(msgs))
				}
			}
		}
		if want := maxCacheBreakpoints - map[bool]int{true: 1, false: 0}[withSystem]; marked != want {
			t.Errorf("system=%v: %d messages marked, want %d", withSystem, marked, want)
		}
	}
}

// TestConvertMessages covers conversions outside the round trip.
func TestConvertMessages(t *testing.T) {
	tr := &transport{ep: providers.Endpoint{Provider: "anthropic"}}
	foreign := json.RawMessage(`{"format":"codex_responses","items":[{"type":"reasoning","encrypted_content":"x"}]}`)
	_, out, err := convertMessages([]providers.Message{
		{Role: providers.RoleSystem, Content: "a"},
		{Role: providers.RoleUser, Content: "  "},
		{Role: providers.RoleAssistant, Content: "", Reasoning: "thought", ReasoningReplay: foreign},
		{Role: providers.RoleAssistant, Content: "x", ToolCalls: []providers.ToolCall{{ID: "call:1/a", Name: "t", Arguments: "not json"}}},
		{Role: providers.RoleTool, ToolCallID: "call:1/a", Content: "r"},
	})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(out)
	want := `[{"role":"user","content":[{"type":"text","text":"(empty message)"}]},` +
		`{"role":"assistant","content":[{"type":"text","text":"(empty response)"}]},` +
		`{"role":"assistant","content":[{"type":"text","text":"x"},{"type":"tool_use","id":"call_1_a","name":"t","input":{}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1_a","content":[{"type":"text","text":"r"}]}]}]`
	if string(raw) != want {
		t.Errorf("converted\n got %s\nwant %s", raw, want)
	}
	bad := []providers.Message{
		{Role: providers.RoleTool, Content: "orphan"},
		{Role: "robot", Content: "?"},
		{Role: providers.RoleAssistant, ToolCalls: []providers.ToolCall{{Name: "t"}}},
	}
	for _, m := range bad {
		if _, _, err := convertMessages([]providers.Message{m}); err == nil {
			t.Errorf("convertMessages accepted %+v", m)
		}
	}
	if _, err := tr.buildRequest(providers.Request{Model: "m", Messages: []providers.Message{{Role: providers.RoleSystem, Content: "only"}}}); err == nil {
		t.Error("buildRequest accepted a request without messages")
	}
	if _, err := tr.buildRequest(providertest.SimpleRequest()); err == nil {
		t.Error("buildRequest accepted a request without model")
	}
}

// TestConvertTools checks that schemas pass through verbatim.
func TestConvertTools(t *testing.T) {
	out, err := convertTools([]providers.ToolSpec{
		{Name: "read", Description: "Read a file", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"a":{"type":"integer"}},"required":["path"],"additionalProperties":false}`)},
		{Name: "now"},
		{Name: "untyped", Parameters: json.RawMessage(`{"properties":{"q":{"type":"string"}}}`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(out)
	want := `[{"name":"read","description":"Read a file","input_schema":{"type":"object","properties":{"path":{"type":"string"},"a":{"type":"integer"}},"required":["path"],"additionalProperties":false}},` +
		`{"name":"now","input_schema":{"type":"object","properties":{}}},` +
		`{"name":"untyped","input_schema":{"properties":{"q":{"type":"string"}},"type":"object"}}]`
	if string(raw) != want {
		t.Errorf("tools\n got %s\nwant %s", raw, want)
	}
	for _, bad := range []providers.ToolSpec{{Name: ""}, {Name: "x", Parameters: json.RawMessage(`[1]`)}, {Name: "x", Parameters: json.RawMessage(`{"required":"path"}`)}} {
		if _, err := convertTools([]providers.ToolSpec{bad}); err == nil {
			t.Errorf("convertTools accepted %+v", bad)
		}
	}
	if out, err := convertTools(nil); err != nil || out != nil {
		t.Errorf("convertTools(nil) = %v, %v", out, err)
	}
}

func TestMapFinishReason(t *testing.T) {
	for wire, want := range map[string]string{
		"end_turn": "stop", "max_tokens": "length", "tool_use": "tool_calls", "stop_sequence": "stop",
		"refusal": "content_filter", "pause_turn": FinishPauseTurn, "model_context_window_exceeded": "length",
		"": "", "something_new": "stop",
	} {
		if got := finishReasons.Map(wire); got != want {
			t.Errorf("finishReasons.Map(%q) = %q, want %q", wire, got, want)
		}
	}
}

// TestPlainMessage checks a server that ignores "stream": true and answers
// with a complete message, and one that answers 200 with an error object.
func TestPlainMessage(t *testing.T) {
	body := []byte(`{"id":"msg_1","type":"message","role":"assistant","model":"claude-x",` +
		`"content":[{"type":"thinking","thinking":"hmm","signature":"sig=="},{"type":"text","text":"Let me check."},` +
		`{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}}],` +
		`"stop_reason":"tool_use","usage":{"input_tokens":10,"output_tokens":20,"cache_read_input_tokens":300,"cache_creation_input_tokens":40}}`)
	srv := providertest.StartWire(t, providertest.WireReply{Body: body, Headers: map[string]string{"Content-Type": "application/json"}})
	resp, err := newTestTransport(t, srv).Stream(context.Background(), providertest.SimpleRequest(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []providers.ToolCall{{ID: "toolu_1", Name: "get_weather", Arguments: `{"city":"Paris"}`}}
	if resp.Content != "Let me check." || resp.Reasoning != "hmm" || !reflect.DeepEqual(resp.ToolCalls, want) ||
		resp.FinishReason != "tool_calls" || resp.Usage.CacheReadTokens != 300 || resp.Usage.CacheWriteTokens != 40 {
		t.Errorf("%+v", resp)
	}
	if len(parseReplay(resp.ReasoningReplay)) != 3 {
		t.Errorf("replay %s", resp.ReasoningReplay)
	}
	for _, bad := range []string{`{}`, `{"type":"error","error":{"type":"api_error","message":"boom"}}`} {
		srv := providertest.StartWire(t, providertest.WireReply{Body: []byte(bad), Headers: map[string]string{"Content-Type": "application/json"}})
		if _, err := newTestTransport(t, srv).Stream(context.Background(), providertest.SimpleRequest(), nil); err == nil {
			t.Errorf("%s accepted as a message", bad)
		}
	}
}

func TestMaxTokens(t *testing.T) {
	for _, tc := range []struct {
		n     int
		model string
		want  int
	}{{0, "claude-sonnet-4-5", defaultMaxTokens}, {0, "claude-3-haiku-20240307", legacyMaxTokens}, {1234, "claude-3-opus", 1234}} {
		if got := maxTokens(tc.n, tc.model); got != tc.want {
			t.Errorf("maxTokens(%d, %q) = %d, want %d", tc.n, tc.model, got, tc.want)
		}
	}
}
