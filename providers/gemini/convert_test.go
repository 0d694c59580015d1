package gemini

import (
	"context"
	"encoding/json"
	"testing"

	"talaria/providers"
	"talaria/providers/providertest"
)

// toolTurn is a conversation with two system messages, a parallel tool
// batch (one failed, one answered without ToolName), signatures on a call
// and on the text, and a user steer after the results.
func toolTurn() []providers.Message {
	failed := providers.Message{Role: providers.RoleTool, ToolCallID: "call_1", ToolName: "list_dir", Content: "permission denied"}
	failed.SetFlag(providers.FlagToolError, true)
	return []providers.Message{
		{Role: providers.RoleSystem, Content: "You are talaria."},
		{Role: providers.RoleSystem, Content: "Model: gemini-2.5-pro"},
		{Role: providers.RoleUser, Content: "look around"},
		{Role: providers.RoleAssistant, Content: "Looking.", Reasoning: "not sent back", ToolCalls: []providers.ToolCall{
			{ID: "call_0", Name: "read_file", Arguments: `{"path":"go.mod"}`, Extra: json.RawMessage(`{"google":{"thought_signature":"sig-call-0"}}`)},
			{ID: "call_1", Name: "list_dir", Arguments: ``},
			{ID: "call_2", Name: "grep", Arguments: `{"pattern":`},
		}},
		{Role: providers.RoleTool, ToolCallID: "call_0", Content: "module talaria"},
		failed,
		{Role: providers.RoleTool, ToolCallID: "call_2", ToolName: "grep", Content: "Error: invalid arguments"},
		{Role: providers.RoleUser, Content: "also README"},
		{Role: providers.RoleAssistant, Content: "Done.", ReasoningReplay: json.RawMessage(`{"gemini_native":{"thought_signature":"sig-text"},"bedrock_converse":[]}`)},
		{Role: providers.RoleAssistant, ReasoningReplay: json.RawMessage(`{"gemini_native":{"thought_signature":"sig-empty"}}`)},
		{Role: providers.RoleUser, Content: ""},
		{Role: providers.RoleUser, Content: "thanks"},
		{Role: providers.RoleAssistant},
	}
}

// TestRequestWire checks URL, headers and the whole body of a request with
// tools: systemInstruction, roles, replayed signatures, grouped function
// responses (error vs result), the steer in its own turn, sanitized tool
// schemas, and generationConfig.
func TestRequestWire(t *testing.T) {
	srv, reqs := providertest.Serve(t, providertest.WireReply{Body: providertest.ReadFixture(t, "max_tokens.sse")})
	tr := newTestTransport(t, srv)
	req := providers.Request{
		Model:     "models/gemini-2.5-pro",
		Messages:  toolTurn(),
		MaxTokens: 8192,
		Tools: []providers.ToolSpec{
			{Name: "read_file", Description: "Read a file.", Parameters: json.RawMessage(`{
				"$schema": "http://json-schema.org/draft-07/schema#",
				"type": "object",
				"additionalProperties": false,
				"properties": {
					"path": {"type": "string", "description": "File path.", "format": "uri", "default": "."},
					"limit": {"type": ["integer", "null"], "minimum": 1, "default": 2000, "exclusiveMaximum": 10000},
					"mode": {"const": "text"},
					"default": {"type": "boolean"}
				},
				"required": ["path", "missing"]
			}`)},
			{Name: "list_dir", Description: "List a directory.", Parameters: json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)},
			{Name: "now", Description: "Current time."},
		},
	}
	if _, err := tr.Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	c := <-reqs
	if c.Path != "/v1beta/models/gemini-2.5-pro:streamGenerateContent" || c.Query != "alt=sse" {
		t.Errorf("URL %s?%s", c.Path, c.Query)
	}
	if c.Header.Get("x-goog-api-key") != "AIzaSy-test-key" || c.Header.Get("Content-Type") != "application/json" || c.Header.Get("Authorization") != "" {
		t.Errorf("headers %v", c.Header)
	}
	want := `{"contents":[` +
		`{"role":"user","parts":[{"text":"look around"}]},` +
		`{"role":"model","parts":[{"text":"Looking."},` +
		`{"thoughtSignature":"sig-call-0","functionCall":{"name":"read_file","args":{"path":"go.mod"}}},` +
		`{"functionCall":{"name":"list_dir","args":{}}},` +
		`{"functionCall":{"name":"grep","args":{}}}]},` +
		`{"role":"user","parts":[` +
		`{"functionResponse":{"name":"read_file","response":{"result":"module talaria"}}},` +
		`{"functionResponse":{"name":"list_dir","response":{"error":"permission denied"}}},` +
		`{"functionResponse":{"name":"grep","response":{"error":"Error: invalid arguments"}}}]},` +
		`{"role":"user","parts":[{"text":"also README"}]},` +
		`{"role":"model","parts":[{"text":"Done.","thoughtSignature":"sig-text"},{"text":"","thoughtSignature":"sig-empty"}]},` +
		`{"role":"user","parts":[{"text":"(empty message)"},{"text":"thanks"}]},` +
		`{"role":"model","parts":[{"text":"(empty response)"}]}],` +
		`"systemInstruction":{"parts":[{"text":"You are talaria."},{"text":"Model: gemini-2.5-pro"}]},` +
		`"tools":[{"functionDeclarations":[` +
		`{"name":"read_file","description":"Read a file.","parameters":{"properties":{"default":{"type":"boolean"},"limit":{"minimum":1,"nullable":true,"type":"integer"},"mode":{"enum":["text"],"type":"string"},"path":{"description":"File path.","type":"string"}},"required":["path"],"type":"object"}},` +
		`{"name":"list_dir","description":"List a directory."},` +
		`{"name":"now","description":"Current time."}]}],` +
		`"generationConfig":{"maxOutputTokens":8192,"thinkingConfig":{"includeThoughts":true}}}`
	if string(c.Raw) != want {
		t.Errorf("body\n%s\nwant\n%s", c.Raw, want)
	}
}

// TestRoundTripReplay: a response's signatures come back on the next
// request exactly where they were.
func TestRoundTripReplay(t *testing.T) {
	srv, _ := providertest.Serve(t, providertest.WireReply{Body: providertest.ReadFixture(t, "tool_calls.sse")})
	tr := newTestTransport(t, srv)
	resp, err := tr.Stream(context.Background(), providertest.SimpleRequest(), nil)
	if err != nil {
		t.Fatal(err)
	}
	msgs := append(providertest.SimpleRequest().Messages, resp.Message(),
		providers.Message{Role: providers.RoleTool, ToolCallID: resp.ToolCalls[0].ID, Content: "x"},
		providers.Message{Role: providers.RoleTool, ToolCallID: resp.ToolCalls[1].ID, Content: "y"})
	contents, err := convertMessages(msgs)
	if err != nil {
		t.Fatal(err)
	}
	model := contents[1]
	if model.Role != "model" || len(model.Parts) != 3 || model.Parts[1].ThoughtSignature != "EpQCCpECAdHtim9sig-first-call" || model.Parts[2].ThoughtSignature != "" {
		t.Errorf("model turn %+v", model)
	}
	if fr := contents[2].Parts[1].FunctionResponse; fr == nil || fr.Name != "list_dir" {
		t.Errorf("function response %+v", contents[2])
	}
}

// TestBuildRequestDefaults: no generationConfig for a non-thinking model
// without a cap; no tools key without tools.
func TestBuildRequestDefaults(t *testing.T) {
	got, err := buildRequest(providertest.SimpleRequest(), "gemini-2.0-flash")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	if string(b) != `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}` {
		t.Errorf("body %s", b)
	}
}

// TestConvertRefusals covers the inputs the converters reject.
func TestConvertRefusals(t *testing.T) {
	bad := [][]providers.Message{
		{{Role: providers.RoleAssistant, ToolCalls: []providers.ToolCall{{ID: "x"}}}},
		{{Role: providers.RoleTool, ToolCallID: "unknown", Content: "x"}},
		{{Role: "developer", Content: "x"}},
	}
	for i, msgs := range bad {
		if _, err := convertMessages(msgs); err == nil {
			t.Errorf("case %d accepted", i)
		}
		if _, err := buildRequest(providers.Request{Messages: msgs}, "m"); err == nil {
			t.Errorf("case %d accepted by buildRequest", i)
		}
	}
	for _, p := range []string{`{`, `[1]`, `"x"`} {
		if _, err := convertTools([]providers.ToolSpec{{Name: "x", Parameters: json.RawMessage(p)}}); err == nil {
			t.Errorf("schema %s accepted", p)
		}
	}
	if _, err := buildRequest(providers.Request{Messages: providertest.SimpleRequest().Messages, Tools: []providers.ToolSpec{{}}}, "m"); err == nil {
		t.Error("buildRequest with a nameless tool accepted")
	}
}
