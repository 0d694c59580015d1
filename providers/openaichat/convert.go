package openaichat

import (
	"encoding/json"
	"fmt"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"talaria/providers"
)

// toWire converts one neutral message to go-openai's message type,
// or to extraMessage for an assistant message whose tool calls carry
// extra_content to replay (withExtra; go-openai's ToolCall has no such
// field). skip is true for a message that is not sent (an empty system
// message). Reasoning is never sent back (DeepSeek answers 400 on
// reasoning_content in input messages); internal flags and tool names are
// not sent either. Other empty contents get a short placeholder because
// go-openai omits an empty content field.
func toWire(i int, m *providers.Message, withExtra bool) (v any, skip bool, err error) {
	switch m.Role {
	case providers.RoleSystem:
		if m.Content == "" {
			return nil, true, nil
		}
		return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: m.Content}, false, nil
	case providers.RoleUser:
		return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: orDefault(m.Content, providers.PlaceholderUser)}, false, nil
	case providers.RoleAssistant:
		om := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: m.Content}
		hasExtra := false
		for j, tc := range m.ToolCalls {
			if tc.ID == "" || tc.Name == "" {
				return nil, false, fmt.Errorf("message %d: tool call %d has no id or name; drop or repair it before sending the conversation", i, j)
			}
			om.ToolCalls = append(om.ToolCalls, openai.ToolCall{
				ID:   tc.ID,
				Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{
					Name:      tc.Name,
					Arguments: orDefault(tc.Arguments, "{}"),
				},
			})
			hasExtra = hasExtra || (len(tc.Extra) > 0 && json.Valid(tc.Extra))
		}
		if len(om.ToolCalls) == 0 {
			om.Content = orDefault(m.Content, providers.PlaceholderAssistant)
		}
		if withExtra && hasExtra {
			return withExtraContent(om, m.ToolCalls), false, nil
		}
		return om, false, nil
	case providers.RoleTool:
		if m.ToolCallID == "" {
			return nil, false, fmt.Errorf("message %d: tool result has no tool_call_id; it must answer a tool call of the preceding assistant message", i)
		}
		return openai.ChatCompletionMessage{
			Role:       openai.ChatMessageRoleTool,
			Content:    orDefault(m.Content, providers.PlaceholderToolOutput),
			ToolCallID: m.ToolCallID,
		}, false, nil
	default:
		return nil, false, fmt.Errorf("message %d: unknown role %q (want system, user, assistant or tool)", i, m.Role)
	}
}

// extraMessage is an assistant message whose tool calls carry Gemini's
// extra_content (thought signatures), replayed verbatim.
type extraMessage struct {
	Role      string          `json:"role"`
	Content   string          `json:"content,omitempty"`
	ToolCalls []extraToolCall `json:"tool_calls"`
}

// extraToolCall is go-openai's tool call with extra_content.
type extraToolCall struct {
	openai.ToolCall
	ExtraContent json.RawMessage `json:"extra_content,omitempty"`
}

func withExtraContent(om openai.ChatCompletionMessage, calls []providers.ToolCall) extraMessage {
	em := extraMessage{Role: om.Role, Content: om.Content, ToolCalls: make([]extraToolCall, len(om.ToolCalls))}
	for j, tc := range om.ToolCalls {
		em.ToolCalls[j].ToolCall = tc
		if x := calls[j].Extra; len(x) > 0 && json.Valid(x) {
			em.ToolCalls[j].ExtraContent = x
		}
	}
	return em
}

// convertTools maps tool specs to go-openai function tools. A spec without
// parameters gets an empty object schema; parameters that are not valid
// JSON are an error. Nil or empty input gives a nil slice.
func convertTools(tools []providers.ToolSpec) ([]openai.Tool, error) {
	return providers.ConvertTools(tools, func(ts *providers.ToolSpec) (openai.Tool, error) {
		params, err := ts.WireParams()
		return openai.Tool{
			Type: openai.ToolTypeFunction,
			Function: &openai.FunctionDefinition{
				Name:        ts.Name,
				Description: ts.Description,
				Parameters:  params,
			},
		}, err
	})
}

// requestHead is go-openai's request without its message list, which
// encodeRequest writes from the per-message cache.
type requestHead struct {
	openai.ChatCompletionRequest
	// Messages shadows the embedded list (the shallower field wins in
	// encoding/json) and, being nil, is left out.
	Messages *struct{} `json:"messages,omitempty"`
}

// buildHead builds everything of a streamed request but the messages:
// model, stream on, usage requested, tools only when there are some, the
// output cap as max_tokens (understood by every local server) or
// max_completion_tokens for the OpenAI reasoning models that refuse
// max_tokens, and reasoning_effort when one is asked for.
func (t *chatTransport) buildHead(req providers.Request) (*requestHead, error) {
	model, err := t.ep.ModelFor(req, providers.ModelHint)
	if err != nil {
		return nil, err
	}
	tools, err := convertTools(req.Tools)
	if err != nil {
		return nil, err
	}
	out := &requestHead{ChatCompletionRequest: openai.ChatCompletionRequest{
		Model:           model,
		Stream:          true,
		StreamOptions:   &openai.StreamOptions{IncludeUsage: true},
		Tools:           tools,
		ReasoningEffort: req.ReasoningEffort,
	}}
	if f := req.ResponseFormat; f != nil {
		out.ResponseFormat = &openai.ChatCompletionResponseFormat{
			Type:       openai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{Name: f.Name, Schema: f.Schema, Strict: f.Strict},
		}
	}
	if req.MaxTokens > 0 {
		if refusesMaxTokens(model) {
			out.MaxCompletionTokens = req.MaxTokens
		} else {
			// max_tokens is deprecated by OpenAI but it is the field Ollama,
			// llama.cpp, vLLM and most compatible servers read.
			//lint:ignore SA1019 local servers read max_tokens
			out.MaxTokens = req.MaxTokens
		}
	}
	return out, nil
}

// encodeRequest builds the JSON body of a call: {"messages":[…], then the
// head's fields}. Each message is encoded by go-openai's marshaller once
// and its bytes come from t.cache on the next call, so the cost of a call
// does not grow with re-encoding the whole history. The images of tool
// results follow their batch in a user message (convert_images.go).
func (t *chatTransport) encodeRequest(req providers.Request) ([]byte, error) {
	b, err := t.encodeBody(req)
	if err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// encodeBody is encodeRequest in the cache's reused buffer (cache_body.go).
func (t *chatTransport) encodeBody(req providers.Request) (*reqBody, error) {
	head, err := t.buildHead(req)
	if err != nil {
		return nil, err
	}
	rawHead, err := json.Marshal(head)
	if err != nil {
		return nil, fmt.Errorf("encode the request: %w", err)
	}
	pick := func(msgs []providers.Message) [][]providers.Image { return sentImages(head.Model, msgs) }
	return t.cache.assemble(req.Messages, req.AppendOnly, pick, t.replayExtra, rawHead)
}

// refusesMaxTokens reports the OpenAI reasoning models for which the API
// rejects max_tokens.
func refusesMaxTokens(model string) bool {
	for _, p := range []string{"o1", "o3", "o4", "gpt-5", "gpt-6"} {
		if strings.HasPrefix(model, p) {
			return true
		}
	}
	return false
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
