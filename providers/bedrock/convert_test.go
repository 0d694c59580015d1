package bedrock

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"talaria/providers"
	"talaria/providers/providertest"
)

// toolTurn is a conversation with system prompt, a parallel tool batch
// (one failed), a steer message after the results, and signed reasoning.
func toolTurn() []providers.Message {
	replay := json.RawMessage(`{"bedrock_converse":[{"reasoningText":{"text":"Read both.","signature":"sig-1"}},{"reasoningText":{"text":"unsigned"}},{"redactedContent":"cmVkYWN0ZWQ="}],"anthropic_messages":[{"type":"thinking"}]}`)
	errMsg := providers.Message{Role: providers.RoleTool, ToolCallID: "tooluse_b", ToolName: "list_dir", Content: "permission denied"}
	errMsg.SetFlag(providers.FlagToolError, true)
	return []providers.Message{
		{Role: providers.RoleSystem, Content: "You are talaria."},
		{Role: providers.RoleUser, Content: "look around"},
		{Role: providers.RoleAssistant, Content: "Looking.", Reasoning: "Read both.", ReasoningReplay: replay, ToolCalls: []providers.ToolCall{
			{ID: "tooluse_a", Name: "read_file", Arguments: `{"path":"go.mod"}`},
			{ID: "tooluse_b", Name: "list_dir", Arguments: ``},
			{ID: "tooluse_c", Name: "grep", Arguments: `{"pattern":`},
		}},
		{Role: providers.RoleTool, ToolCallID: "tooluse_a", ToolName: "read_file", Content: "module talaria"},
		errMsg,
		{Role: providers.RoleTool, ToolCallID: "tooluse_c", ToolName: "grep", Content: "Error: invalid JSON arguments"},
		{Role: providers.RoleUser, Content: "also check README"},
		{Role: providers.RoleAssistant, Content: ""},
		{Role: providers.RoleUser, Content: ""},
	}
}

// TestRequestWithTools checks the whole wire body: system blocks, toolUse
// with object inputs, reasoning replayed (signed and redacted only, this
// transport's key only), the three tool results and the steer merged into
// one user message with success/error statuses, placeholders for empty
// text, toolConfig and maxTokens, plus the auth header.
func TestRequestWithTools(t *testing.T) {
	srv, reqs := startServer(t, providertest.WireReply{Body: providertest.ReadFixture(t, "converse_max_tokens.json")})
	tr := newTestTransport(t, srv, false)
	req := providers.Request{
		Messages:  toolTurn(),
		MaxTokens: 4096,
		Tools: []providers.ToolSpec{
			{Name: "read_file", Description: "Read a file.", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`)},
			{Name: "list_dir", Description: "List a directory."},
		},
	}
	if _, err := tr.Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	c := <-reqs
	want := `{"messages":[` +
		`{"role":"user","content":[{"text":"look around"}]},` +
		`{"role":"assistant","content":[` +
		`{"reasoningContent":{"reasoningText":{"text":"Read both.","signature":"sig-1"}}},` +
		`{"reasoningContent":{"redactedContent":"cmVkYWN0ZWQ="}},` +
		`{"text":"Looking."},` +
		`{"toolUse":{"toolUseId":"tooluse_a","name":"read_file","input":{"path":"go.mod"}}},` +
		`{"toolUse":{"toolUseId":"tooluse_b","name":"list_dir","input":{}}},` +
		`{"toolUse":{"toolUseId":"tooluse_c","name":"grep","input":{}}}]},` +
		`{"role":"user","content":[` +
		`{"toolResult":{"toolUseId":"tooluse_a","content":[{"text":"module talaria"}],"status":"success"}},` +
		`{"toolResult":{"toolUseId":"tooluse_b","content":[{"text":"permission denied"}],"status":"error"}},` +
		`{"toolResult":{"toolUseId":"tooluse_c","content":[{"text":"Error: invalid JSON arguments"}],"status":"error"}},` +
		`{"text":"also check README"}]},` +
		`{"role":"assistant","content":[{"text":"(empty response)"}]},` +
		`{"role":"user","content":[{"text":"(empty message)"}]}],` +
		`"system":[{"text":"You are talaria."}],` +
		`"inferenceConfig":{"maxTokens":4096},` +
		`"toolConfig":{"tools":[` +
		`{"toolSpec":{"name":"read_file","description":"Read a file.","inputSchema":{"json":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}}}},` +
		`{"toolSpec":{"name":"list_dir","description":"List a directory.","inputSchema":{"json":{"type":"object","properties":{}}}}}]}}`
	if string(c.Raw) != want {
		t.Errorf("body\n%s\nwant\n%s", c.Raw, want)
	}
	if c.Method != "POST" || c.Header.Get("Authorization") != "Bearer ABSKQmVkcm9ja0FQSUtleS10ZXN0" {
		t.Errorf("%s %v", c.Method, c.Header)
	}
}

// TestRequestWithoutToolsWritesToolTrafficAsText: a call without tools
// (the budget-exhausted summary) may not carry toolUse/toolResult blocks.
func TestRequestWithoutToolsWritesToolTrafficAsText(t *testing.T) {
	got, err := buildRequest(providers.Request{Messages: toolTurn()}, "m")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	s := string(b)
	for _, bad := range []string{"toolUse", "toolResult", "toolConfig", "reasoningContent"} {
		if strings.Contains(s, bad) {
			t.Errorf("body has %s: %s", bad, s)
		}
	}
	for _, want := range []string{`[tool call tooluse_a read_file {\"path\":\"go.mod\"}]`, `[result of tool call tooluse_b list_dir]\npermission denied`} {
		if !strings.Contains(s, want) {
			t.Errorf("body lacks %s: %s", want, s)
		}
	}
	cr := got
	for i := 1; i < len(cr.Messages); i++ {
		if cr.Messages[i].Role == cr.Messages[i-1].Role {
			t.Errorf("messages %d and %d share role %s", i-1, i, cr.Messages[i].Role)
		}
	}
}

// TestConvertRefusals covers the inputs the converters reject.
func TestConvertRefusals(t *testing.T) {
	bad := [][]providers.Message{
		{{Role: providers.RoleAssistant, ToolCalls: []providers.ToolCall{{Name: "x"}}}},
		{{Role: providers.RoleTool, Content: "x"}},
		{{Role: "developer", Content: "x"}},
	}
	for i, msgs := range bad {
		if _, err := convertMessages(msgs, false, nil); err == nil {
			t.Errorf("case %d accepted", i)
		}
		if _, err := buildRequest(providers.Request{Messages: msgs, Tools: []providers.ToolSpec{{Name: "x"}}}, "m"); err == nil {
			t.Errorf("case %d accepted by buildRequest", i)
		}
	}
	if _, err := convertTools([]providers.ToolSpec{{Name: "x", Parameters: json.RawMessage(`{`)}}); err == nil {
		t.Error("invalid schema accepted")
	}
	if _, err := buildRequest(providers.Request{Messages: providertest.SimpleRequest().Messages, Tools: []providers.ToolSpec{{}}}, "m"); err == nil {
		t.Error("buildRequest with a nameless tool accepted")
	}
}
