package bedrock

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"talaria/providers"
)

// replayKey is the key under which ReasoningReplay holds this transport's
// reasoning blocks: {"bedrock_converse": [<reasoningContent>, ...]}. Keyed,
// so replay data of another transport (after a fallback) is never sent here.
const replayKey = APIMode

// convertMessages maps neutral messages to Converse messages; system
// messages are left out (buildRequest sends them as the system field). Assistant tool calls become toolUse blocks, tool
// results toolResult blocks in a user message, and consecutive messages of
// one role are merged, since Converse requires the roles to alternate.
// Reasoning recorded by this transport (signed reasoningText or
// redactedContent) is replayed first in its assistant message. With
// toolsAsText, tool calls and
// results are written as plain text: Converse refuses toolUse/toolResult
// blocks in a request without toolConfig (a final call without tools).
// sent[i] (see sentImages) are the images sent in the toolResult of
// msgs[i], after its text, or, for a user message, image blocks after
// its text.
func convertMessages(msgs []providers.Message, toolsAsText bool, sent [][]providers.Image) ([]wireMessage, error) {
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
			add("user", textBlock(orDefault(m.Content, providers.PlaceholderUser)))
			add("user", userImageBlocks(imagesOf(sent, i))...)
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
			text := orDefault(m.Content, providers.PlaceholderToolOutput)
			if toolsAsText {
				add("user", textBlock(fmt.Sprintf("[result of tool call %s %s]\n%s", m.ToolCallID, m.ToolName, text)))
				continue
			}
			status := "success"
			if m.ToolFailed() {
				status = "error"
			}
			add("user", contentBlock{ToolResult: &toolResultBlock{
				ToolUseID: m.ToolCallID,
				Content:   appendImages([]toolResultEntry{{Text: text}}, imagesOf(sent, i)),
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
		blocks = append(blocks, textBlock(providers.PlaceholderAssistant))
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

// convertTools maps tool specs to Converse tools (each a toolSpec with
// inputSchema.json). A spec without parameters gets an empty object
// schema; parameters that are not valid JSON are an error. Nil or empty
// input gives a nil slice.

func convertTools(tools []providers.ToolSpec) ([]wireTool, error) {
	return providers.ConvertTools(tools, func(ts *providers.ToolSpec) (wireTool, error) {
		params, err := ts.WireParams()
		return wireTool{ToolSpec: toolSpec{
			Name: ts.Name, Description: ts.Description, InputSchema: inputSchema{JSON: params},
		}}, err
	})
}

// buildRequest builds the Converse request body (the same for converse
// and converse-stream): system blocks from the system messages, the
// messages, toolConfig when tools are offered, inferenceConfig.maxTokens
// when req.MaxTokens is set, and for a reasoning effort on an Anthropic
// Claude model (see thinks) extended thinking through
// additionalModelRequestFields; other model families on Bedrock take no
// effort setting through Converse, so none is sent. A request without
// tools whose history holds tool calls writes them as text, since Converse
// refuses toolUse blocks without a toolConfig.
func buildRequest(req providers.Request, model string) (*converseRequest, error) {
	tools, err := convertTools(req.Tools)
	if err != nil {
		return nil, err
	}
	msgs, err := convertMessages(req.Messages, len(tools) == 0 && hasToolTraffic(req.Messages), sentImages(model, req.Messages))
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
	if budget, ok := thinkingBudgets[req.ReasoningEffort]; ok && thinks(model) {
		out.AdditionalModelRequestFields = &additionalFields{Thinking: &thinking{Type: "enabled", BudgetTokens: budget}}
		if out.InferenceConfig == nil || out.InferenceConfig.MaxTokens <= budget {
			// maxTokens counts the thinking too and must exceed the budget.
			out.InferenceConfig = &inferenceConfig{MaxTokens: budget + thinkingAnswerTokens}
		}
	}
	return out, nil
}

// thinks reports the Anthropic models on Bedrock that take extended
// thinking: model ids and inference profiles naming "anthropic.claude",
// except the Claude 3 and 3.5 families (3.7 can). An ARN that does not name
// the model gets no thinking.
func thinks(model string) bool {
	i := strings.Index(model, "anthropic.claude")
	if i < 0 {
		return false
	}
	m := model[i+len("anthropic."):]
	return !strings.HasPrefix(m, "claude-3-") || strings.HasPrefix(m, "claude-3-7")
}

// Thinking budgets for the reasoning efforts (the same as the
// anthropic_messages wire's), and the room left for the answer when the
// output cap has to be raised above the budget.
var thinkingBudgets = map[string]int{"low": 1024, "medium": 4096, "high": 16384}

const thinkingAnswerTokens = 8192

func hasToolTraffic(msgs []providers.Message) bool {
	for _, m := range msgs {
		if m.Role == providers.RoleTool || len(m.ToolCalls) > 0 {
			return true
		}
	}
	return false
}

func textBlock(s string) contentBlock { return contentBlock{Text: &s} }

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
