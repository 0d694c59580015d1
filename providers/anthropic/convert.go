package anthropic

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"talaria/providers"
)

// maxCacheBreakpoints is the API's limit on cache_control markers per
// request; a fifth is a 400 (wire.md §2.9).
const maxCacheBreakpoints = 4

// Output caps sent when the request leaves MaxTokens at 0: max_tokens is
// required by the Messages API. The original Claude 3 models accept at most
// 4096.
const (
	defaultMaxTokens = 8192
	legacyMaxTokens  = 4096
)

// convertMessages maps neutral messages to the system blocks and the
// message list. System messages become the system parameter, tool results
// become user-role tool_result blocks with consecutive ones merged into one
// user message (a result's images, within imageBudget(), are image blocks
// after its text, and so are the images a user message carries), and an assistant message gets back its thinking blocks,
// verbatim and in their original order, from a ReasoningReplay written by
// this transport. No cache_control is set here; buildRequest places the
// breakpoints.
func convertMessages(msgs []providers.Message) ([]block, []message, error) {
	var system []block
	out := make([]message, 0, len(msgs))
	sent := imageBudget().Select(msgs)
	for i, m := range msgs {
		switch m.Role {
		case providers.RoleSystem:
			if isBlank(m.Content) {
				continue
			}
			system = append(system, textBlock(m.Content))
		case providers.RoleUser:
			out = appendUser(out, textBlock(orDefault(m.Content, providers.PlaceholderUser)), false)
			if sent != nil && len(sent[i]) > 0 {
				u := &out[len(out)-1]
				u.Content = appendImages(u.Content, sent[i])
			}
		case providers.RoleAssistant:
			blocks, err := assistantBlocks(i, &m)
			if err != nil {
				return nil, nil, err
			}
			out = append(out, message{Role: "assistant", Content: blocks})
		case providers.RoleTool:
			if m.ToolCallID == "" {
				return nil, nil, fmt.Errorf("message %d: tool result has no tool_call_id; it must answer a tool call of the preceding assistant message", i)
			}
			b := toolResultBlock(&m)
			if sent != nil {
				b.Content = appendImages(b.Content, sent[i])
			}
			out = appendUser(out, b, true)
		default:
			return nil, nil, fmt.Errorf("message %d: unknown role %q (want system, user, assistant or tool)", i, m.Role)
		}
	}
	return system, out, nil
}

// appendUser adds a block to the conversation. It joins the previous
// message when that is a user message, so that the results of one batch of
// tool calls form a single user turn: a tool result only joins a message
// made of tool results (they must come first), text joins any user message.
func appendUser(out []message, b block, isResult bool) []message {
	if n := len(out); n > 0 && out[n-1].Role == "user" {
		u := &out[n-1]
		if !isResult || allToolResults(u.Content) {
			u.Content = append(u.Content, b)
			return out
		}
	}
	return append(out, message{Role: "user", Content: []block{b}})
}

func allToolResults(blocks []block) bool {
	for _, b := range blocks {
		if b.Type != "tool_result" {
			return false
		}
	}
	return true
}

func textBlock(s string) block { return block{Type: "text", Text: s} }

func toolResultBlock(m *providers.Message) block {
	return block{
		Type:      "tool_result",
		ToolUseID: sanitizeID(m.ToolCallID),
		Content:   []block{textBlock(orDefault(m.Content, providers.PlaceholderToolOutput))},
	}
}

// assistantBlocks builds the content of an assistant message: the replayed
// thinking blocks in their original places among the text and tool_use
// blocks, then whatever the replay did not place (text first, then the tool
// calls in order).
func assistantBlocks(i int, m *providers.Message) ([]block, error) {
	for j, tc := range m.ToolCalls {
		if tc.ID == "" || tc.Name == "" {
			return nil, fmt.Errorf("message %d: tool call %d has no id or name; drop or repair it before sending the conversation", i, j)
		}
	}
	var blocks []block
	textDone := isBlank(m.Content)
	used := make([]bool, len(m.ToolCalls))
	for _, rb := range parseReplay(m.ReasoningReplay) {
		switch rb.Type {
		case "thinking":
			if rb.Signature != "" && rb.Thinking != nil {
				blocks = append(blocks, block{Type: "thinking", Thinking: rb.Thinking, Signature: rb.Signature})
			}
		case "redacted_thinking":
			if rb.Data != "" {
				blocks = append(blocks, block{Type: "redacted_thinking", Data: rb.Data})
			}
		case "text":
			if !textDone {
				blocks = append(blocks, textBlock(m.Content))
				textDone = true
			}
		case "tool_use":
			for j, tc := range m.ToolCalls {
				if !used[j] && tc.ID == rb.ID {
					used[j] = true
					blocks = append(blocks, toolUseBlock(tc))
					break
				}
			}
		}
	}
	if !textDone {
		blocks = append(blocks, textBlock(m.Content))
	}
	for j, tc := range m.ToolCalls {
		if !used[j] {
			blocks = append(blocks, toolUseBlock(tc))
		}
	}
	if len(blocks) == 0 {
		blocks = append(blocks, textBlock(providers.PlaceholderAssistant))
	}
	return blocks, nil
}

// toolUseBlock replays a tool call. The input must be a JSON object: empty
// arguments (a tool without parameters) and arguments that are not an
// object are sent as {}.
func toolUseBlock(tc providers.ToolCall) block {
	input := json.RawMessage(strings.TrimSpace(tc.Arguments))
	if len(input) == 0 || input[0] != '{' || !json.Valid(input) {
		input = json.RawMessage("{}")
	}
	return block{Type: "tool_use", ID: sanitizeID(tc.ID), Name: tc.Name, Input: input}
}

// sanitizeID makes a tool-call id acceptable to the API, which allows only
// [a-zA-Z0-9_-]: ids written by other providers after a fallback may hold
// other characters. Every other byte becomes '_', the same way for the
// tool_use block and its tool_result.
func sanitizeID(id string) string {
	ok := func(c byte) bool {
		return c == '_' || c == '-' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
	}
	for i := 0; i < len(id); i++ {
		if !ok(id[i]) {
			b := []byte(id)
			for j := i; j < len(b); j++ {
				if !ok(b[j]) {
					b[j] = '_'
				}
			}
			return string(b)
		}
	}
	return id
}

// applyCacheControl places the prompt-cache breakpoints: one on the last
// system block, then one on the last cacheable block (text, tool_use,
// tool_result; never thinking) of each of the latest messages, newest
// first, until maxCacheBreakpoints are used. The prefix up to each marker
// is cached, so the stable system prompt and the growing conversation tail
// are both reused on the next call.
func applyCacheControl(system []block, msgs []message) {
	budget := maxCacheBreakpoints
	if n := len(system); n > 0 {
		system[n-1].CacheControl = &ephemeral
		budget--
	}
	for i := len(msgs) - 1; i >= 0 && budget > 0; i-- {
		if markLastCacheable(msgs[i].Content) {
			budget--
		}
	}
}

func markLastCacheable(blocks []block) bool {
	for i := len(blocks) - 1; i >= 0; i-- {
		switch blocks[i].Type {
		case "text", "tool_use", "tool_result":
			blocks[i].CacheControl = &ephemeral
			return true
		}
	}
	return false
}

// convertTools maps tool specs to custom tools. The JSON schema is passed
// through verbatim (properties, required and every other keyword) when it
// already says "type":"object", so the bytes of the tool list stay the same
// from call to call and the prompt cache holds. A spec without parameters
// gets an empty object schema; parameters that are not a JSON object, or
// whose "required" is not a list of names, are an error.
func convertTools(tools []providers.ToolSpec) ([]toolSpec, error) {
	return providers.ConvertTools(tools, func(ts *providers.ToolSpec) (toolSpec, error) {
		schema, err := inputSchema(ts.Parameters)
		if err != nil {
			return toolSpec{}, fmt.Errorf("tool %q: %w", ts.Name, err)
		}
		return toolSpec{Name: ts.Name, Description: ts.Description, InputSchema: schema}, nil
	})
}

func inputSchema(params json.RawMessage) (json.RawMessage, error) {
	params = bytes.TrimSpace(params)
	if len(params) == 0 || string(params) == "null" {
		return json.RawMessage(providers.EmptyObjectSchema), nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(params, &fields); err != nil || fields == nil {
		return nil, errors.New("parameters is not a JSON object; fix its JSON schema")
	}
	if req, ok := fields["required"]; ok {
		var names []string
		if json.Unmarshal(req, &names) != nil {
			return nil, errors.New(`"required" is not a list of names; fix its JSON schema`)
		}
	}
	_, hasProps := fields["properties"]
	if string(bytes.TrimSpace(fields["type"])) == `"object"` && hasProps {
		return params, nil
	}
	fields["type"] = json.RawMessage(`"object"`)
	if !hasProps {
		fields["properties"] = json.RawMessage("{}")
	}
	return json.Marshal(fields)
}

// Thinking budgets for the reasoning efforts. 1024 is the API's minimum.
var thinkingBudgets = map[string]int{"low": 1024, "medium": 4096, "high": 16384}

// buildRequest builds the body of a call: model, max_tokens (req.MaxTokens,
// or a default because the API requires one), the system messages as the
// system parameter, the messages, the tools, extended thinking for a
// reasoning effort, the cache_control breakpoints (at most 4: the system
// prompt and the latest messages) and "stream": true.
func (t *transport) buildRequest(req providers.Request) (*request, error) {
	model, err := t.ep.ModelFor(req, providers.ModelHint)
	if err != nil {
		return nil, err
	}
	system, msgs, err := convertMessages(req.Messages)
	if err != nil {
		return nil, err
	}
	if len(msgs) == 0 {
		return nil, errors.New("no user or assistant message to send; the Messages API needs at least one")
	}
	tools, err := convertTools(req.Tools)
	if err != nil {
		return nil, err
	}
	applyCacheControl(system, msgs)
	r := &request{
		Model:     model,
		MaxTokens: maxTokens(req.MaxTokens, model),
		System:    system,
		Messages:  msgs,
		Tools:     tools,
		Stream:    true,
	}
	if budget, ok := thinkingBudgets[req.ReasoningEffort]; ok && thinks(model) {
		r.Thinking = &thinking{Type: "enabled", BudgetTokens: budget}
		if r.MaxTokens <= budget {
			// max_tokens counts the thinking too and must exceed the budget.
			r.MaxTokens = budget + defaultMaxTokens
		}
	}
	return r, nil
}

func maxTokens(n int, model string) int {
	if n > 0 {
		return n
	}
	if legacyModel(model) {
		return legacyMaxTokens
	}
	return defaultMaxTokens
}

// legacyModel reports the original Claude 3 models: a 4096-token output cap
// and no extended thinking.
func legacyModel(model string) bool {
	for _, p := range []string{"claude-3-opus", "claude-3-sonnet", "claude-3-haiku"} {
		if strings.HasPrefix(model, p) {
			return true
		}
	}
	return false
}

// thinks reports whether a model can take extended thinking: every model
// but the Claude 3 and 3.5 families (3.7 can). Names of other servers'
// models are given the benefit of the doubt.
func thinks(model string) bool {
	return !strings.HasPrefix(model, "claude-3-") || strings.HasPrefix(model, "claude-3-7")
}

func isBlank(s string) bool { return strings.TrimSpace(s) == "" }

func orDefault(s, def string) string {
	if isBlank(s) {
		return def
	}
	return s
}
