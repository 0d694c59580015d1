package responses

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"talaria/providers"
	"talaria/providers/providertest"
)

// TestReplayRoundTrip streams a reasoning response, sends it back with its
// tool result and checks the next request's input items: instructions,
// the reasoning item replayed (without id) before the assistant's message
// and function_call, and the function_call_output.
func TestReplayRoundTrip(t *testing.T) {
	first := newTestTransport(t, providertest.FixtureServer(t, "reasoning.sse"))
	resp, err := first.Stream(context.Background(), providertest.SimpleRequest(), nil)
	if err != nil {
		t.Fatal(err)
	}
	conv := []providers.Message{
		{Role: providers.RoleSystem, Content: "You are talaria."},
		{Role: providers.RoleSystem, Content: "Work in /repo."},
		{Role: providers.RoleUser, Content: "run the tests"},
		resp.Message(),
		{Role: providers.RoleTool, ToolCallID: "call_Rd9u2Lp0", ToolName: "read_file", Content: "module talaria"},
		{Role: providers.RoleUser, Content: "thanks"},
	}
	srv := providertest.FixtureServer(t, "text.sse")
	req := providers.Request{Model: "gpt-5-codex", Messages: conv, Tools: []providers.ToolSpec{
		{Name: "read_file", Description: "Read a file", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
	}}
	if _, err := newTestTransport(t, srv).Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	body := srv.TakeRequest(t).Body
	if body["instructions"] != "You are talaria.\n\nWork in /repo." {
		t.Errorf("instructions %q", body["instructions"])
	}
	want := []map[string]any{
		{"type": "message", "role": "user", "content": "run the tests"},
		{"type": "reasoning", "summary": []any{
			map[string]any{"type": "summary_text", "text": "**Checking the module**\n\nI should read go.mod first."},
			map[string]any{"type": "summary_text", "text": "Then run the tests."},
		}, "encrypted_content": "gAAAAABoxEncryptedReasoningFixture0001=="},
		{"type": "message", "role": "assistant", "content": "Reading go.mod."},
		{"type": "function_call", "call_id": "call_Rd9u2Lp0", "name": "read_file", "arguments": `{"path":"go.mod"}`},
		{"type": "function_call_output", "call_id": "call_Rd9u2Lp0", "output": "module talaria"},
		{"type": "message", "role": "user", "content": "thanks"},
	}
	if got := providertest.Objects(body["input"]); !reflect.DeepEqual(got, want) {
		gotJSON, _ := json.MarshalIndent(got, "", " ")
		t.Errorf("input items\n%s", gotJSON)
	}
	wantTools := []any{map[string]any{
		"type": "function", "name": "read_file", "description": "Read a file", "strict": false,
		"parameters": map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}, "required": []any{"path"}},
	}}
	if !reflect.DeepEqual(body["tools"], wantTools) {
		t.Errorf("tools %v", body["tools"])
	}
}

// TestConvertMessages covers conversions outside the round trip.
func TestConvertMessages(t *testing.T) {
	foreign := json.RawMessage(`{"format":"anthropic_messages","blocks":[{"type":"thinking","thinking":"x","signature":"s"}]}`)
	_, out, err := convertMessages([]providers.Message{
		{Role: providers.RoleSystem, Content: "sys"},
		{Role: providers.RoleUser, Content: ""},
		{Role: providers.RoleAssistant, Content: "  ", ReasoningReplay: foreign, ToolCalls: []providers.ToolCall{{ID: "toolu_1", Name: "ls"}}},
		{Role: providers.RoleTool, ToolCallID: "toolu_1", Content: ""},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(out)
	want := `[{"type":"message","role":"user","content":"(empty message)"},` +
		`{"type":"function_call","call_id":"toolu_1","name":"ls","arguments":"{}"},` +
		`{"type":"function_call_output","call_id":"toolu_1","output":"(no output)"}]`
	if string(raw) != want {
		t.Errorf("converted\n got %s\nwant %s", raw, want)
	}
	for _, m := range []providers.Message{
		{Role: providers.RoleTool, Content: "orphan"},
		{Role: "robot"},
		{Role: providers.RoleAssistant, ToolCalls: []providers.ToolCall{{ID: "x"}}},
	} {
		if _, _, err := convertMessages([]providers.Message{m}, nil); err == nil {
			t.Errorf("convertMessages accepted %+v", m)
		}
	}
	tr := &transport{ep: providers.Endpoint{Provider: "openai"}}
	if _, err := tr.buildBody(providertest.SimpleRequest()); err == nil {
		t.Error("buildBody accepted a request without model")
	}
	body, err := (&transport{ep: providers.Endpoint{Model: "gpt-4.1"}}).buildBody(providertest.SimpleRequest())
	if err != nil || body.Model != "gpt-4.1" || !body.Stream || body.Store || body.Reasoning != nil {
		t.Errorf("buildBody = %+v, %v", body, err)
	}
}

// TestReasoningEffort checks issue 18 item 4's mapping: reasoning.effort
// is sent when asked for (with encrypted reasoning, even for a model not
// known to reason), and left out otherwise.
func TestReasoningEffort(t *testing.T) {
	for _, tc := range []struct {
		model, effort string
		want          any
	}{
		{"gpt-4.1", "", nil},
		{"gpt-5", "", map[string]any{"summary": "auto"}},
		{"gpt-5", "high", map[string]any{"summary": "auto", "effort": "high"}},
		{"my-local-reasoner", "low", map[string]any{"summary": "auto", "effort": "low"}},
	} {
		srv := providertest.FixtureServer(t, "text.sse")
		req := providertest.SimpleRequest()
		req.Model, req.ReasoningEffort = tc.model, tc.effort
		if _, err := newTestTransport(t, srv).Stream(context.Background(), req, nil); err != nil {
			t.Fatal(err)
		}
		body := srv.TakeRequest(t).Body
		if !reflect.DeepEqual(body["reasoning"], tc.want) {
			t.Errorf("%s/%q: reasoning %v, want %v", tc.model, tc.effort, body["reasoning"], tc.want)
		}
		if _, inc := body["include"]; inc != (tc.want != nil) {
			t.Errorf("%s/%q: include %v", tc.model, tc.effort, body["include"])
		}
	}
}

func TestConvertTools(t *testing.T) {
	out, err := convertTools([]providers.ToolSpec{{Name: "now"}})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(out)
	if want := `[{"type":"function","name":"now","parameters":{"type":"object","properties":{}},"strict":false}]`; string(raw) != want {
		t.Errorf("tools %s, want %s", raw, want)
	}
	for _, bad := range []providers.ToolSpec{{Name: ""}, {Name: "x", Parameters: json.RawMessage(`{bad`)}} {
		if _, err := convertTools([]providers.ToolSpec{bad}); err == nil {
			t.Errorf("convertTools accepted %+v", bad)
		}
	}
}

func TestMapFinishReason(t *testing.T) {
	for wire, want := range map[string]string{
		"completed": "stop", "max_output_tokens": "length", "content_filter": "content_filter",
		"incomplete": "length", "failed": "error", "cancelled": "error", "": "", "new_reason": "stop",
	} {
		if got := finishReasons.Map(wire); got != want {
			t.Errorf("finishReasons.Map(%q) = %q, want %q", wire, got, want)
		}
	}
}

// TestNormalize checks complete response objects.
func TestNormalize(t *testing.T) {
	body := []byte(`{"id":"resp_1","object":"response","status":"completed","model":"gpt-5",` +
		`"output":[{"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"Think."}],"encrypted_content":"enc"},` +
		`{"id":"fc_1","type":"function_call","call_id":"call_1","name":"ls","arguments":"{\"dir\":\".\"}","status":"completed"}],` +
		`"usage":{"input_tokens":100,"input_tokens_details":{"cached_tokens":60},"output_tokens":7,"output_tokens_details":{"reasoning_tokens":5}}}`)
	resp, err := normalize(body, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []providers.ToolCall{{ID: "call_1", Name: "ls", Arguments: `{"dir":"."}`}}
	if resp.Reasoning != "Think." || !reflect.DeepEqual(resp.ToolCalls, want) || resp.FinishReason != "tool_calls" ||
		resp.Usage != (providers.Usage{InputTokens: 40, OutputTokens: 7, CacheReadTokens: 60, ReasoningTokens: 5}) {
		t.Errorf("%+v", resp)
	}
	if r, ok := parseReplay(resp.ReasoningReplay); !ok || len(r.Items) != 1 {
		t.Errorf("replay %s", resp.ReasoningReplay)
	}
	for _, bad := range []string{"{}", `[]`, `{"status":"failed","error":{"code":"server_error","message":"x"}}`} {
		if _, err := normalize([]byte(bad), nil); err == nil {
			t.Errorf("normalize accepted %s", bad)
		}
	}
}
