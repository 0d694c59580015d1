package openaichat

import (
	"context"
	"encoding/json"
	"errors"
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
	for i, want := range []struct{ id, content string }{{"call_1", "18C"}, {"Xq3bT9mKp2LzR8vN4wYc6HdJ1fGsA0eU", emptyToolOutput}} {
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

// TestConvertErrors checks conversions that must fail with a useful error.
func TestConvertErrors(t *testing.T) {
	tr := &chatTransport{ep: providers.Endpoint{Provider: "p"}}
	cases := map[string]func() error{
		"unknown role": func() error {
			_, err := tr.ConvertMessages([]providers.Message{{Role: "developer", Content: "x"}})
			return err
		},
		"tool result without id": func() error {
			_, err := tr.ConvertMessages([]providers.Message{{Role: providers.RoleTool, Content: "x"}})
			return err
		},
		"tool call without name": func() error {
			_, err := tr.ConvertMessages([]providers.Message{{Role: providers.RoleAssistant, ToolCalls: []providers.ToolCall{{ID: "a"}}}})
			return err
		},
		"invalid schema": func() error {
			_, err := tr.ConvertTools([]providers.ToolSpec{{Name: "x", Parameters: json.RawMessage(`{`)}})
			return err
		},
		"no model": func() error {
			_, err := tr.BuildRequest(providertest.SimpleRequest())
			return err
		},
	}
	for name, f := range cases {
		if err := f(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	tools, err := tr.ConvertTools(nil)
	if err != nil || tools.([]openai.Tool) != nil {
		t.Errorf("ConvertTools(nil) = %v, %v; want nil", tools, err)
	}
	msgs, _ := tr.ConvertMessages([]providers.Message{{Role: providers.RoleSystem}, {Role: providers.RoleUser}})
	want := []openai.ChatCompletionMessage{{Role: "user", Content: emptyUserText}}
	if !reflect.DeepEqual(msgs, want) {
		t.Errorf("empty messages → %+v, want %+v", msgs, want)
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
	r, err := tr.(*chatTransport).BuildRequest(providers.Request{Messages: providertest.SimpleRequest().Messages})
	if err != nil || r.(openai.ChatCompletionRequest).Model != "gpt-4o" {
		t.Errorf("BuildRequest without model: %+v, %v; want the endpoint model", r, err)
	}
}

// TestMapFinishReason checks the finish-reason table.
func TestMapFinishReason(t *testing.T) {
	tr := &chatTransport{}
	for wire, want := range map[string]string{
		"stop": "stop", "length": "length", "tool_calls": "tool_calls", "content_filter": "content_filter",
		"function_call": "tool_calls", "error": "error", "": "", "eos": "stop", "something_new": "stop",
	} {
		if got := tr.MapFinishReason(wire); got != want {
			t.Errorf("MapFinishReason(%q) = %q, want %q", wire, got, want)
		}
	}
}

// TestValidateResponse checks the empty-response rule.
func TestValidateResponse(t *testing.T) {
	tr := &chatTransport{ep: providers.Endpoint{Provider: "p"}}
	if err := tr.ValidateResponse(&providers.Response{}); !errors.Is(err, ErrEmptyResponse) {
		t.Errorf("empty response: %v", err)
	}
	if err := tr.ValidateResponse(nil); !errors.Is(err, ErrEmptyResponse) {
		t.Errorf("nil response: %v", err)
	}
	for _, r := range []*providers.Response{
		{FinishReason: "stop"}, {Content: "x"}, {Reasoning: "x"}, {ToolCalls: []providers.ToolCall{{ID: "a"}}},
	} {
		if err := tr.ValidateResponse(r); err != nil {
			t.Errorf("%+v: %v", r, err)
		}
	}
}

// TestNormalizeResponse checks non-streamed responses, typed and raw.
func TestNormalizeResponse(t *testing.T) {
	tr := &chatTransport{}
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
	for _, raw := range []any{typed, &typed} {
		got, err := tr.NormalizeResponse(raw)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("NormalizeResponse(%T) = %+v, %v\nwant %+v", raw, got, err, want)
		}
	}
	if r, w := tr.CacheStats(typed); r != 4 || w != 0 {
		t.Errorf("CacheStats = %d, %d", r, w)
	}
	got, err := tr.NormalizeResponse([]byte(`{"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"reasoning":"r","refusal":null},"finish_reason":"stop"}]}`))
	if err != nil || got.Content != "ab" || got.Reasoning != "r" || got.FinishReason != "stop" {
		t.Errorf("raw JSON: %+v, %v", got, err)
	}
	if _, err := tr.NormalizeResponse(42); err == nil {
		t.Error("NormalizeResponse(int) accepted")
	}
}
