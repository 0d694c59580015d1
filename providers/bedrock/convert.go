package bedrock

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"talaria/providers"
)

// Placeholders sent instead of empty text: Converse rejects blank text
// blocks and messages without content.
const (
	emptyToolOutput = "(no output)"
	emptyUserText   = "(empty message)"
	emptyAssistant  = "(empty response)"
)

// emptyObjectSchema is the input schema of a tool that declares none.
const emptyObjectSchema = `{"type":"object","properties":{}}`

// ToolErrorFlag is the internal message flag (see providers.Message.Flag)
// that marks a role=tool message as a failed call, sent as
// toolResult.status "error". Without the flag, a result whose text starts
// with "Error:" (the tools.Errorf convention) counts as failed too.
const ToolErrorFlag = providers.FlagToolError

// replayKey is the key under which ReasoningReplay holds this transport's
// reasoning blocks: {"bedrock_converse": [<reasoningContent>, ...]}. Keyed,
// so replay data of another transport (after a fallback) is never sent here.
const replayKey = APIMode

// ErrEmptyResponse is wrapped by ValidateResponse when a response carries
// nothing at all: no content, no tool calls, no reasoning, no stop reason.
var ErrEmptyResponse = errors.New("empty response")

// ConvertMessages maps neutral messages to Converse messages
// ([]wireMessage); system messages are left out (BuildRequest sends them as
// the system field). Assistant tool calls become toolUse blocks, tool
// results toolResult blocks in a user message, and consecutive messages of
// one role are merged, since Converse requires the roles to alternate.
// Reasoning recorded by this transport (signed reasoningText or
// redactedContent) is replayed first in its assistant message.
func (t *converseTransport) ConvertMessages(msgs []providers.Message) (any, error) {
	return convertMessages(msgs, false)
}

// convertMessages does ConvertMessages. With toolsAsText, tool calls and
// results are written as plain text: Converse refuses toolUse/toolResult
// blocks in a request without toolConfig (a final call without tools).
func convertMessages(msgs []providers.Message, toolsAsText bool) ([]wireMessage, error) {
	out := make([]wireMessage, 0, len(msgs))
	add := func(role string, blocks ...contentBlock) {
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Content = append(out[n-1].Content, blocks...)
			return
		}
		out = append(out, wireMessage{Role: role, Content: blocks})
	}
	for i, m := range msgs {
		switch m.Role {
		case providers.RoleSystem:
			continue
		case providers.RoleUser:
			add("user", textBlock(orDefault(m.Content, emptyUserText)))
		case providers.RoleAssistant:
			blocks, err := assistantBlocks(i, m, toolsAsText)
			if err != nil {
				return nil, err
			}
			add("assistant", blocks...)
		case providers.RoleTool:
			if m.ToolCallID == "" {
				return nil, fmt.Errorf("message %d: tool result has no tool_call_id; it must answer a tool call of the preceding assistant message", i)
			}
			text := orDefault(m.Content, emptyToolOutput)
			if toolsAsText {
				add("user", textBlock(fmt.Sprintf("[result of tool call %s %s]\n%s", m.ToolCallID, m.ToolName, text)))
				continue
			}
			status := "success"
			if isToolError(m) {
				status = "error"
			}
			add("user", contentBlock{ToolResult: &toolResultBlock{
				ToolUseID: m.ToolCallID,
				Content:   []toolResultEntry{{Text: text}},
				Status:    status,
			}})
		default:
			return nil, fmt.Errorf("message %d: unknown role %q (want system, user, assistant or tool)", i, m.Role)
		}
	}
	return out, nil
}

// assistantBlocks converts one assistant message: replayed reasoning, text,
// then tool calls.
func assistantBlocks(i int, m providers.Message, toolsAsText bool) ([]contentBlock, error) {
	var blocks []contentBlock
	if !toolsAsText {
		blocks = append(blocks, replayBlocks(m.ReasoningReplay)...)
	}
	if m.Content != "" {
		blocks = append(blocks, textBlock(m.Content))
	}
	for j, tc := range m.ToolCalls {
		if tc.ID == "" || tc.Name == "" {
			return nil, fmt.Errorf("message %d: tool call %d has no id or name; drop or repair it before sending the conversation", i, j)
		}
		if toolsAsText {
			blocks = append(blocks, textBlock(fmt.Sprintf("[tool call %s %s %s]", tc.ID, tc.Name, orDefault(tc.Arguments, "{}"))))
			continue
		}
		blocks = append(blocks, contentBlock{ToolUse: &toolUseBlock{
			ToolUseID: tc.ID, Name: tc.Name, Input: inputObject(tc.Arguments),
		}})
	}
	if !hasNonReasoning(blocks) {
		blocks = append(blocks, textBlock(emptyAssistant))
	}
	return blocks, nil
}

func hasNonReasoning(blocks []contentBlock) bool {
	for _, b := range blocks {
		if b.ReasoningContent == nil {
			return true
		}
	}
	return false
}

// inputObject returns tool-call arguments as the JSON object toolUse.input
// requires: arguments that are empty, invalid or not an object are sent as
// {} (the tool result already told the model what was wrong with them).
func inputObject(args string) json.RawMessage {
	b := bytes.TrimSpace([]byte(args))
	if len(b) > 0 && b[0] == '{' && json.Valid(b) {
		return b
	}
	return json.RawMessage(`{}`)
}

// replayBlocks decodes this transport's ReasoningReplay. Only signed
// reasoningText and redactedContent are replayed: models that check them
// reject unsigned reasoning, and the others do not need it back.
func replayBlocks(raw json.RawMessage) []contentBlock {
	if len(raw) == 0 {
		return nil
	}
	var keyed map[string][]reasoningContent
	if json.Unmarshal(raw, &keyed) != nil {
		return nil
	}
	var out []contentBlock
	for _, rc := range keyed[replayKey] {
		signed := rc.ReasoningText != nil && rc.ReasoningText.Signature != ""
		if signed || rc.RedactedContent != "" {
			out = append(out, contentBlock{ReasoningContent: &rc})
		}
	}
	return out
}

// isToolError reports a failed tool call: ToolErrorFlag, or "Error:" text.
func isToolError(m providers.Message) bool {
	return m.Flag(ToolErrorFlag) || strings.HasPrefix(m.Content, "Error:")
}

// ConvertTools maps tool specs to Converse tools ([]wireTool, each a
// toolSpec with inputSchema.json). A spec without parameters gets an empty
// object schema; parameters that are not valid JSON are an error. Nil or
// empty input gives a nil slice.
func (t *converseTransport) ConvertTools(tools []providers.ToolSpec) (any, error) {
	return convertTools(tools)
}

func convertTools(tools []providers.ToolSpec) ([]wireTool, error) {
	if len(tools) == 0 {
		return nil, nil
	}
	out := make([]wireTool, 0, len(tools))
	for _, ts := range tools {
		if ts.Name == "" {
			return nil, errors.New("tool spec without a name; every tool needs one")
		}
		params := ts.Parameters
		if len(params) == 0 || string(params) == "null" {
			params = json.RawMessage(emptyObjectSchema)
		} else if !json.Valid(params) {
			return nil, fmt.Errorf("tool %q: parameters is not valid JSON; fix its JSON schema", ts.Name)
		}
		out = append(out, wireTool{ToolSpec: toolSpec{
			Name: ts.Name, Description: ts.Description, InputSchema: inputSchema{JSON: params},
		}})
	}
	return out, nil
}

// BuildRequest builds the Converse request body (the same for converse and
// converse-stream): system blocks from the system messages, the messages,
// toolConfig when tools are offered, and inferenceConfig.maxTokens when
// req.MaxTokens is set. A request without tools whose history holds tool
// calls writes them as text, since Converse refuses toolUse blocks without
// a toolConfig.
func (t *converseTransport) BuildRequest(req providers.Request) (any, error) {
	return buildRequest(req)
}

func buildRequest(req providers.Request) (*converseRequest, error) {
	tools, err := convertTools(req.Tools)
	if err != nil {
		return nil, err
	}
	msgs, err := convertMessages(req.Messages, len(tools) == 0 && hasToolTraffic(req.Messages))
	if err != nil {
		return nil, err
	}
	out := &converseRequest{Messages: msgs}
	for _, m := range req.Messages {
		if m.Role == providers.RoleSystem && m.Content != "" {
			out.System = append(out.System, systemBlock{Text: m.Content})
		}
	}
	if req.MaxTokens > 0 {
		out.InferenceConfig = &inferenceConfig{MaxTokens: req.MaxTokens}
	}
	if len(tools) > 0 {
		out.ToolConfig = &toolConfig{Tools: tools}
	}
	return out, nil
}

func hasToolTraffic(msgs []providers.Message) bool {
	for _, m := range msgs {
		if m.Role == providers.RoleTool || len(m.ToolCalls) > 0 {
			return true
		}
	}
	return false
}

// MapFinishReason maps a Converse stopReason onto the normalized set:
// end_turn and stop_sequence → stop, tool_use → tool_calls, max_tokens and
// model_context_window_exceeded → length, guardrail_intervened and
// content_filtered → content_filter, malformed_model_output and
// malformed_tool_use → error; unknown values count as stop. "" stays "".
func (t *converseTransport) MapFinishReason(wire string) string { return mapFinishReason(wire) }

func mapFinishReason(wire string) string {
	switch wire {
	case "":
		return ""
	case "end_turn", "stop_sequence":
		return providers.FinishStop
	case "tool_use":
		return providers.FinishToolCalls
	case "max_tokens", "model_context_window_exceeded":
		return providers.FinishLength
	case "guardrail_intervened", "content_filtered":
		return providers.FinishContentFilter
	case "malformed_model_output", "malformed_tool_use":
		return providers.FinishError
	default:
		return providers.FinishStop
	}
}

// ValidateResponse rejects a response that carries nothing at all; the
// error wraps ErrEmptyResponse.
func (t *converseTransport) ValidateResponse(r *providers.Response) error {
	if r.Empty() {
		return fmt.Errorf("%s: %w: no content, tool calls, reasoning or stop reason; retry the request", t.ep.Provider, ErrEmptyResponse)
	}
	return nil
}

// NormalizeResponse turns a complete Converse answer into a Response. raw
// is the response body as []byte, json.RawMessage or string.
func (t *converseTransport) NormalizeResponse(raw any) (*providers.Response, error) {
	body, err := responseJSON(raw)
	if err != nil {
		return nil, err
	}
	var cr converseResponse
	if err := json.Unmarshal(body, &cr); err != nil {
		return nil, fmt.Errorf("decode Converse response: %w", err)
	}
	return normalize(&cr), nil
}

// CacheStats returns cacheReadInputTokens and cacheWriteInputTokens of a
// complete Converse answer (same inputs as NormalizeResponse).
func (t *converseTransport) CacheStats(raw any) (read, write int) {
	body, err := responseJSON(raw)
	if err != nil {
		return 0, 0
	}
	var cr converseResponse
	if json.Unmarshal(body, &cr) != nil || cr.Usage == nil {
		return 0, 0
	}
	return cr.Usage.CacheReadInputTokens, cr.Usage.CacheWriteInputTokens
}

func responseJSON(raw any) ([]byte, error) {
	switch v := raw.(type) {
	case []byte:
		return v, nil
	case json.RawMessage:
		return v, nil
	case string:
		return []byte(v), nil
	default:
		return nil, fmt.Errorf("cannot normalize %T: want the Converse response JSON", raw)
	}
}

func textBlock(s string) contentBlock { return contentBlock{Text: &s} }

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
