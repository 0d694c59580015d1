package openaichat

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"talaria/providers"
	"talaria/providers/providertest"
)

// conversation is a tool round trip with reasoning, as the loop replays it.
func conversation() []providers.Message {
	return []providers.Message{
		{Role: providers.RoleSystem, Content: "You are terse."},
		{Role: providers.RoleUser, Content: "weather and stock?"},
		{
			Role: providers.RoleAssistant, Reasoning: "I should call two tools.", ReasoningReplay: json.RawMessage(`{"sig":"x"}`),
			ToolCalls: []providers.ToolCall{
				{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Paris"}`, Extra: json.RawMessage(`{"google":{"thought_signature":"c2ln"}}`)},
				{ID: "Xq3bT9mKp2LzR8vN4wYc6HdJ1fGsA0eU", Name: "get_stock", Arguments: ""},
			},
		},
		{Role: providers.RoleTool, ToolCallID: "call_1", ToolName: "get_weather", Content: "18C"},
		{Role: providers.RoleTool, ToolCallID: "Xq3bT9mKp2LzR8vN4wYc6HdJ1fGsA0eU", ToolName: "get_stock", Content: ""},
		{Role: providers.RoleAssistant, Content: "Paris is 18C.", Reasoning: "done"},
		{Role: providers.RoleUser, Content: "thanks"},
	}
}

func toolSpecs() []providers.ToolSpec {
	return []providers.ToolSpec{
		{Name: "get_weather", Description: "Weather for a city.", Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)},
		{Name: "get_stock", Description: "Stock price."},
	}
}

// TestRequestBody checks the JSON the server receives.
func TestRequestBody(t *testing.T) {
	srv, reqs := sseServer(t, "openai_text.sse")
	tr := newTestTransport(t, srv, "openai")
	_, err := tr.Stream(context.Background(), providers.Request{Model: "gpt-4o", Messages: conversation(), Tools: toolSpecs(), MaxTokens: 1024}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := <-reqs
	if got.Path != "/v1/chat/completions" || got.Header.Get("Authorization") != "Bearer sk-test" {
		t.Errorf("path %q auth %q", got.Path, got.Header.Get("Authorization"))
	}
	for _, banned := range []string{"reasoning", "extra_content", `"sig"`, "tool_name", "I should call"} {
		if strings.Contains(string(got.Raw), banned) {
			t.Errorf("request body contains %q: %s", banned, got.Raw)
		}
	}
	var body struct {
		Model         string          `json:"model"`
		Stream        bool            `json:"stream"`
		StreamOptions map[string]bool `json:"stream_options"`
		MaxTokens     int             `json:"max_tokens"`
		Tools         []struct {
			Type     string `json:"type"`
			Function struct {
				Name       string          `json:"name"`
				Parameters json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
		Messages []map[string]json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(got.Raw, &body); err != nil {
		t.Fatal(err)
	}
	if body.Model != "gpt-4o" || !body.Stream || !body.StreamOptions["include_usage"] || body.MaxTokens != 1024 {
		t.Errorf("model %q stream %v stream_options %v max_tokens %d", body.Model, body.Stream, body.StreamOptions, body.MaxTokens)
	}
	if len(body.Tools) != 2 || body.Tools[0].Type != "function" || body.Tools[0].Function.Name != "get_weather" ||
		!strings.Contains(string(body.Tools[0].Function.Parameters), `"required":["city"]`) ||
		string(body.Tools[1].Function.Parameters) != `{"type":"object","properties":{}}` {
		t.Errorf("tools %+v", body.Tools)
	}
	roles := []string{}
	for _, m := range body.Messages {
		var r string
		_ = json.Unmarshal(m["role"], &r)
		roles = append(roles, r)
	}
	if want := []string{"system", "user", "assistant", "tool", "tool", "assistant", "user"}; !reflect.DeepEqual(roles, want) {
		t.Fatalf("roles %v, want %v", roles, want)
	}
	asst := body.Messages[2]
	if c, ok := asst["content"]; ok && string(c) != "null" {
		t.Errorf("assistant tool-call message has content %s, want it absent or null", c)
	}
	var calls []struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct{ Name, Arguments string }
	}
	_ = json.Unmarshal(asst["tool_calls"], &calls)
	if len(calls) != 2 || calls[0].ID != "call_1" || calls[0].Type != "function" || calls[0].Function.Name != "get_weather" ||
		calls[0].Function.Arguments != `{"city":"Paris"}` || calls[1].ID != "Xq3bT9mKp2LzR8vN4wYc6HdJ1fGsA0eU" || calls[1].Function.Arguments != "{}" {
		t.Errorf("replayed tool calls %+v", calls)
	}
	for i, want := range []struct{ id, content string }{{"call_1", "18C"}, {"Xq3bT9mKp2LzR8vN4wYc6HdJ1fGsA0eU", providers.PlaceholderToolOutput}} {
		var id, content string
		_ = json.Unmarshal(body.Messages[3+i]["tool_call_id"], &id)
		_ = json.Unmarshal(body.Messages[3+i]["content"], &content)
		if id != want.id || content != want.content {
			t.Errorf("tool message %d: id %q content %q, want %q / %q", i, id, content, want.id, want.content)
		}
	}
}

// TestRequestBodyVariants checks tools/max_tokens absence, the reasoning
// model cap, and extra_content replay for Gemini only.
func TestRequestBodyVariants(t *testing.T) {
	tests := []struct {
		name, provider, model string
		req                   providers.Request
		present, absent       []string
	}{
		{
			name: "no tools, no cap", provider: "openai",
			req:     providertest.SimpleRequest(),
			present: []string{`"model":"test-model"`, `"stream":true`, `"stream_options":{"include_usage":true}`},
			absent:  []string{`"tools"`, `"max_tokens"`, `"max_completion_tokens"`},
		},
		{
			name: "empty tool list is no tools", provider: "openai",
			req:    providers.Request{Messages: providertest.SimpleRequest().Messages, Tools: []providers.ToolSpec{}},
			absent: []string{`"tools"`},
		},
		{
			name: "reasoning model uses max_completion_tokens", provider: "openai",
			req:     providers.Request{Model: "o3-mini", Messages: providertest.SimpleRequest().Messages, MaxTokens: 500},
			present: []string{`"max_completion_tokens":500`},
			absent:  []string{`"max_tokens"`},
		},
		{
			name: "gemini gets extra_content back", provider: "gemini",
			req:     providers.Request{Messages: conversation()},
			present: []string{`"extra_content":{"google":{"thought_signature":"c2ln"}}`},
			absent:  []string{"reasoning"},
		},
		{
			name: "others do not", provider: "openrouter",
			req:    providers.Request{Messages: conversation()},
			absent: []string{"extra_content", "thought_signature"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, reqs := sseServer(t, "openai_text.sse")
			if _, err := newTestTransport(t, srv, tc.provider).Stream(context.Background(), tc.req, nil); err != nil {
				t.Fatal(err)
			}
			raw := string((<-reqs).Raw)
			for _, s := range tc.present {
				if !strings.Contains(raw, s) {
					t.Errorf("body lacks %s: %s", s, raw)
				}
			}
			for _, s := range tc.absent {
				if strings.Contains(raw, s) {
					t.Errorf("body has %s: %s", s, raw)
				}
			}
		})
	}
}

// encodeMessages encodes msgs as the request body does and returns the
// message list, for tests.
func encodeMessages(t *testing.T, tr *chatTransport, msgs []providers.Message) ([]map[string]any, error) {
	t.Helper()
	if tr.cache == nil {
		tr.cache = &msgCache{}
	}
	rb, err := tr.cache.assemble(msgs, false, nil, tr.replayExtra, []byte(`{"model":"m"}`))
	if err != nil {
		return nil, err
	}
	raw := rb.Bytes()
	var body struct {
		Messages []map[string]any `json:"messages"`
		Model    string           `json:"model"`
	}
	if err := json.Unmarshal(raw, &body); err != nil || body.Model != "m" {
		t.Fatalf("assembled body %s: %v", raw, err)
	}
	return body.Messages, nil
}

// TestConvertErrors checks conversions that must fail with a useful error.
func TestConvertErrors(t *testing.T) {
	tr := &chatTransport{ep: providers.Endpoint{Provider: "p"}}
	cases := map[string]func() error{
		"unknown role": func() error {
			_, err := encodeMessages(t, tr, []providers.Message{{Role: "developer", Content: "x"}})
			return err
		},
		"tool result without id": func() error {
			_, err := encodeMessages(t, tr, []providers.Message{{Role: providers.RoleTool, Content: "x"}})
			return err
		},
		"tool call without name": func() error {
			_, err := encodeMessages(t, tr, []providers.Message{{Role: providers.RoleAssistant, ToolCalls: []providers.ToolCall{{ID: "a"}}}})
			return err
		},
		"invalid schema": func() error {
			_, err := convertTools([]providers.ToolSpec{{Name: "x", Parameters: json.RawMessage(`{`)}})
			return err
		},
		"no model": func() error {
			_, err := tr.encodeRequest(providertest.SimpleRequest())
			return err
		},
	}
	for name, f := range cases {
		if err := f(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	tools, err := convertTools(nil)
	if err != nil || tools != nil {
		t.Errorf("convertTools(nil) = %v, %v; want nil", tools, err)
	}
	msgs, _ := encodeMessages(t, tr, []providers.Message{{Role: providers.RoleSystem}, {Role: providers.RoleUser}})
	want := []map[string]any{{"role": "user", "content": providers.PlaceholderUser}}
	if !reflect.DeepEqual(msgs, want) {
		t.Errorf("empty messages → %+v, want %+v", msgs, want)
	}
}

// TestMessageCache checks that the per-message cache re-encodes what
// changed, in place or by a new value, and nothing else.
func TestMessageCache(t *testing.T) {
	tr := &chatTransport{ep: providers.Endpoint{Provider: "p"}, cache: &msgCache{}}
	conv := conversation()
	first, err := encodeMessages(t, tr, conv)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := encodeMessages(t, tr, conv)
	if !reflect.DeepEqual(first, again) {
		t.Fatalf("same history encoded differently:\n%v\n%v", first, again)
	}
	conv[1].Content = "edited"
	conv[2].ToolCalls[0].Arguments = `{"city":"Lyon"}` // changed in place
	conv = append(conv[:5], conv[6:]...)               // one message dropped
	got, _ := encodeMessages(t, tr, conv)
	if got[1]["content"] != "edited" || len(got) != len(first)-1 || got[5]["content"] != "thanks" {
		t.Errorf("edits not seen: %v", got)
	}
	calls := got[2]["tool_calls"].([]any)
	if fn := calls[0].(map[string]any)["function"].(map[string]any); fn["arguments"] != `{"city":"Lyon"}` {
		t.Errorf("in-place edit of a tool call not seen: %v", fn)
	}
	// The same history with and without extra_content replay differs.
	tr.replayExtra = true
	withExtra, _ := encodeMessages(t, tr, conv)
	if c := withExtra[2]["tool_calls"].([]any)[0].(map[string]any); c["extra_content"] == nil {
		t.Errorf("extra_content not replayed after switching: %v", c)
	}
}

// TestNew checks endpoint validation and defaults.
func TestNew(t *testing.T) {
	if _, err := New(providers.Endpoint{Provider: "x", BaseURL: "localhost:11434"}); err == nil {
		t.Error("base_url without scheme accepted")
	}
	tr, err := New(providers.Endpoint{Provider: "openai", Model: "gpt-4o"})
	if err != nil || tr.(*chatTransport).baseURL != "https://api.openai.com/v1" {
		t.Errorf("default endpoint: %v %v", tr, err)
	}
	if !wantsExtraContent(providers.Endpoint{}, "https://generativelanguage.googleapis.com/v1beta/openai") {
		t.Error("Gemini base URL not recognized")
	}
	h, err := tr.(*chatTransport).buildHead(providers.Request{Messages: providertest.SimpleRequest().Messages})
	if err != nil || h.Model != "gpt-4o" {
		t.Errorf("buildHead without model: %+v, %v; want the endpoint model", h, err)
	}
}

// TestMapFinishReason checks the finish-reason table.
func TestMapFinishReason(t *testing.T) {
	for wire, want := range map[string]string{
		"stop": "stop", "length": "length", "tool_calls": "tool_calls", "content_filter": "content_filter",
		"function_call": "tool_calls", "error": "error", "": "", "eos": "stop", "something_new": "stop",
	} {
		if got := finishReasons.Map(wire); got != want {
			t.Errorf("finishReasons.Map(%q) = %q, want %q", wire, got, want)
		}
	}
}

// TestFullResponse checks non-streamed responses: go-openai's own type
// marshalled, and raw JSON with fields go-openai does not model.
func TestFullResponse(t *testing.T) {
	typed := openai.ChatCompletionResponse{
		Model: "deepseek-reasoner",
		Choices: []openai.ChatCompletionChoice{{
			Message: openai.ChatCompletionMessage{
				Role: "assistant", ReasoningContent: "think",
				ToolCalls: []openai.ToolCall{{ID: "call_9", Type: "function", Function: openai.FunctionCall{Name: "ls", Arguments: `{"p":"."}`}}},
			},
			FinishReason: openai.FinishReasonToolCalls,
		}},
		Usage: openai.Usage{PromptTokens: 10, CompletionTokens: 3, PromptTokensDetails: &openai.PromptTokensDetails{CachedTokens: 4}},
	}
	want := &providers.Response{
		Reasoning: "think", FinishReason: "tool_calls", RawFinishReason: "tool_calls", Model: "deepseek-reasoner",
		ToolCalls: []providers.ToolCall{{ID: "call_9", Name: "ls", Arguments: `{"p":"."}`}},
		Usage:     providers.Usage{InputTokens: 6, OutputTokens: 3, CacheReadTokens: 4},
	}
	raw, _ := json.Marshal(typed)
	got, err := decodeFullResponse(raw)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("decodeFullResponse = %+v, %v\nwant %+v", got, err, want)
	}
	got, err = decodeFullResponse([]byte(`{"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"reasoning":"r","refusal":null},"finish_reason":"stop"}]}`))
	if err != nil || got.Content != "ab" || got.Reasoning != "r" || got.FinishReason != "stop" {
		t.Errorf("raw JSON: %+v, %v", got, err)
	}
}
