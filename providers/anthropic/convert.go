package anthropic

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"talaria/providers"
)

// Placeholders sent instead of empty text: the API answers 400 on a text
// block that is empty or only whitespace.
const (
	emptyToolOutput = "(no output)"
	emptyUserText   = "(empty message)"
	emptyAssistant  = "(empty response)"
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

// ConvertMessages maps neutral messages to []sdk.MessageParam. System
// messages are left out (BuildRequest sends them as the system parameter),
// tool results become user-role tool_result blocks with consecutive ones
// merged into one user message, and an assistant message gets back its
// thinking blocks, verbatim and in their original order, from a
// ReasoningReplay written by this transport. No cache_control is set here;
// BuildRequest places the breakpoints.
func (t *transport) ConvertMessages(msgs []providers.Message) (any, error) {
	_, out, err := convertMessages(msgs)
	return out, err
}

func convertMessages(msgs []providers.Message) ([]sdk.TextBlockParam, []sdk.MessageParam, error) {
	var system []sdk.TextBlockParam
	out := make([]sdk.MessageParam, 0, len(msgs))
	for i, m := range msgs {
		switch m.Role {
		case providers.RoleSystem:
			if isBlank(m.Content) {
				continue
			}
			system = append(system, sdk.TextBlockParam{Text: m.Content})
		case providers.RoleUser:
			out = appendUser(out, textBlock(orDefault(m.Content, emptyUserText)), false)
		case providers.RoleAssistant:
			blocks, err := assistantBlocks(i, &m)
			if err != nil {
				return nil, nil, err
			}
			out = append(out, sdk.MessageParam{OfAssistant: &sdk.AssistantMessageParam{Content: blocks}})
		case providers.RoleTool:
			if m.ToolCallID == "" {
				return nil, nil, fmt.Errorf("message %d: tool result has no tool_call_id; it must answer a tool call of the preceding assistant message", i)
			}
			out = appendUser(out, toolResultBlock(&m), true)
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
func appendUser(out []sdk.MessageParam, b sdk.ContentBlockParamUnion, isResult bool) []sdk.MessageParam {
	if n := len(out); n > 0 && out[n-1].OfUser != nil {
		u := out[n-1].OfUser
		if !isResult || allToolResults(u.Content) {
			u.Content = append(u.Content, b)
			return out
		}
	}
	return append(out, sdk.MessageParam{OfUser: &sdk.UserMessageParam{Content: []sdk.ContentBlockParamUnion{b}}})
}

func allToolResults(blocks []sdk.ContentBlockParamUnion) bool {
	for _, b := range blocks {
		if b.OfToolResult == nil {
			return false
		}
	}
	return true
}

func textBlock(s string) sdk.ContentBlockParamUnion {
	return sdk.ContentBlockParamUnion{OfText: &sdk.TextBlockParam{Text: s}}
}

func toolResultBlock(m *providers.Message) sdk.ContentBlockParamUnion {
	return sdk.ContentBlockParamUnion{OfToolResult: &sdk.ToolResultBlockParam{
		ToolUseID: sanitizeID(m.ToolCallID),
		Content: []sdk.ToolResultBlockParamContentUnion{
			{OfText: &sdk.TextBlockParam{Text: orDefault(m.Content, emptyToolOutput)}},
		},
	}}
}

// assistantBlocks builds the content of an assistant message: the replayed
// thinking blocks in their original places among the text and tool_use
// blocks, then whatever the replay did not place (text first, then the tool
// calls in order).
func assistantBlocks(i int, m *providers.Message) ([]sdk.ContentBlockParamUnion, error) {
	for j, tc := range m.ToolCalls {
		if tc.ID == "" || tc.Name == "" {
			return nil, fmt.Errorf("message %d: tool call %d has no id or name; drop or repair it before sending the conversation", i, j)
		}
	}
	var blocks []sdk.ContentBlockParamUnion
	textDone := isBlank(m.Content)
	used := make([]bool, len(m.ToolCalls))
	for _, rb := range parseReplay(m.ReasoningReplay) {
		switch rb.Type {
		case "thinking":
			if rb.Signature != "" && rb.Thinking != nil {
				blocks = append(blocks, sdk.ContentBlockParamUnion{OfThinking: &sdk.ThinkingBlockParam{Thinking: *rb.Thinking, Signature: rb.Signature}})
			}
		case "redacted_thinking":
			if rb.Data != "" {
				blocks = append(blocks, sdk.ContentBlockParamUnion{OfRedactedThinking: &sdk.RedactedThinkingBlockParam{Data: rb.Data}})
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
		blocks = append(blocks, textBlock(emptyAssistant))
	}
	return blocks, nil
}

// toolUseBlock replays a tool call. The input must be a JSON object: empty
// arguments (a tool without parameters) and arguments that are not an
// object are sent as {}.
func toolUseBlock(tc providers.ToolCall) sdk.ContentBlockParamUnion {
	input := json.RawMessage(strings.TrimSpace(tc.Arguments))
	if len(input) == 0 || input[0] != '{' || !json.Valid(input) {
		input = json.RawMessage("{}")
	}
	return sdk.ContentBlockParamUnion{OfToolUse: &sdk.ToolUseBlockParam{ID: sanitizeID(tc.ID), Name: tc.Name, Input: input}}
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
func applyCacheControl(system []sdk.TextBlockParam, msgs []sdk.MessageParam) {
	budget := maxCacheBreakpoints
	if n := len(system); n > 0 {
		system[n-1].CacheControl = sdk.NewCacheControlEphemeralParam()
		budget--
	}
	for i := len(msgs) - 1; i >= 0 && budget > 0; i-- {
		if markLastCacheable(msgs[i]) {
			budget--
		}
	}
}

func markLastCacheable(m sdk.MessageParam) bool {
	var blocks []sdk.ContentBlockParamUnion
	switch {
	case m.OfUser != nil:
		blocks = m.OfUser.Content
	case m.OfAssistant != nil:
		blocks = m.OfAssistant.Content
	}
	cc := sdk.NewCacheControlEphemeralParam()
	for i := len(blocks) - 1; i >= 0; i-- {
		switch b := blocks[i]; {
		case b.OfText != nil:
			b.OfText.CacheControl = cc
			return true
		case b.OfToolUse != nil:
			b.OfToolUse.CacheControl = cc
			return true
		case b.OfToolResult != nil:
			b.OfToolResult.CacheControl = cc
			return true
		}
	}
	return false
}

// ConvertTools maps tool specs to []sdk.ToolUnionParam custom tools. The
// JSON schema is passed through verbatim (properties, required and every
// other keyword), so the bytes of the tool list stay the same from call to
// call and the prompt cache holds. A spec without parameters gets an empty
// object schema; parameters that are not a JSON object are an error.
func (t *transport) ConvertTools(tools []providers.ToolSpec) (any, error) {
	return convertTools(tools)
}

func convertTools(tools []providers.ToolSpec) ([]sdk.ToolUnionParam, error) {
	if len(tools) == 0 {
		return nil, nil
	}
	out := make([]sdk.ToolUnionParam, 0, len(tools))
	for _, ts := range tools {
		if ts.Name == "" {
			return nil, errors.New("tool spec without a name; every tool needs one")
		}
		schema, err := inputSchema(ts.Parameters)
		if err != nil {
			return nil, fmt.Errorf("tool %q: %w", ts.Name, err)
		}
		tp := &sdk.ToolParam{Name: ts.Name, InputSchema: schema}
		if ts.Description != "" {
			tp.Description = sdk.String(ts.Description)
		}
		out = append(out, sdk.ToolUnionParam{OfTool: tp})
	}
	return out, nil
}

func inputSchema(params json.RawMessage) (sdk.ToolInputSchemaParam, error) {
	var s sdk.ToolInputSchemaParam
	params = bytes.TrimSpace(params)
	if len(params) == 0 || string(params) == "null" {
		s.Properties = json.RawMessage("{}")
		return s, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(params, &fields); err != nil || fields == nil {
		return s, errors.New("parameters is not a JSON object; fix its JSON schema")
	}
	for k, v := range fields {
		switch k {
		case "type":
		case "properties":
			s.Properties = v
		case "required":
			if err := json.Unmarshal(v, &s.Required); err != nil {
				return s, errors.New(`"required" is not a list of names; fix its JSON schema`)
			}
		default:
			if s.ExtraFields == nil {
				s.ExtraFields = map[string]any{}
			}
			s.ExtraFields[k] = v
		}
	}
	return s, nil
}

// BuildRequest builds the sdk.MessageNewParams of a call: model, max_tokens
// (req.MaxTokens, or a default because the API requires one), the system
// messages as the system parameter, the messages, the tools, and the
// cache_control breakpoints (at most 4: the system prompt and the latest
// messages). Stream sends it with "stream": true added.
func (t *transport) BuildRequest(req providers.Request) (any, error) {
	return t.buildParams(req)
}

func (t *transport) buildParams(req providers.Request) (sdk.MessageNewParams, error) {
	model := req.Model
	if model == "" {
		model = t.ep.Model
	}
	if model == "" {
		return sdk.MessageNewParams{}, fmt.Errorf("%s: no model set; set model.name in the config or pass --model", t.ep.Provider)
	}
	system, msgs, err := convertMessages(req.Messages)
	if err != nil {
		return sdk.MessageNewParams{}, err
	}
	if len(msgs) == 0 {
		return sdk.MessageNewParams{}, errors.New("no user or assistant message to send; the Messages API needs at least one")
	}
	tools, err := convertTools(req.Tools)
	if err != nil {
		return sdk.MessageNewParams{}, err
	}
	applyCacheControl(system, msgs)
	return sdk.MessageNewParams{
		Model:     model,
		MaxTokens: int64(maxTokens(req.MaxTokens, model)),
		System:    system,
		Messages:  msgs,
		Tools:     tools,
	}, nil
}

func maxTokens(n int, model string) int {
	if n > 0 {
		return n
	}
	for _, p := range []string{"claude-3-opus", "claude-3-sonnet", "claude-3-haiku"} {
		if strings.HasPrefix(model, p) {
			return legacyMaxTokens
		}
	}
	return defaultMaxTokens
}

func isBlank(s string) bool { return strings.TrimSpace(s) == "" }

func orDefault(s, def string) string {
	if isBlank(s) {
		return def
	}
	return s
}
