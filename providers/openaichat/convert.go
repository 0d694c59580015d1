package openaichat

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"talaria/providers"
)

// Placeholders sent instead of an empty content string: go-openai omits an
// empty content field, and OpenAI answers 400 when a user or tool message
// (or an assistant message without tool calls) has no content at all.
const (
	emptyToolOutput = "(no output)"
	emptyUserText   = "(empty message)"
	emptyAssistant  = "(empty response)"
)

// emptyObjectSchema is the parameters schema of a tool that declares none.
const emptyObjectSchema = `{"type":"object","properties":{}}`

// ErrEmptyResponse is wrapped by ValidateResponse when a response carries
// nothing at all: no content, no tool calls, no reasoning, no finish reason.
var ErrEmptyResponse = errors.New("empty response")

// ConvertMessages maps neutral messages to []openai.ChatCompletionMessage.
// Reasoning is never sent back (DeepSeek answers 400 on reasoning_content in
// input messages); internal flags and tool names are not sent either. An
// empty system message is dropped; other empty contents get a short
// placeholder because the wire has no way to say "empty" through go-openai.
func (t *chatTransport) ConvertMessages(msgs []providers.Message) (any, error) {
	return convertMessages(msgs)
}

func convertMessages(msgs []providers.Message) ([]openai.ChatCompletionMessage, error) {
	out := make([]openai.ChatCompletionMessage, 0, len(msgs))
	for i, m := range msgs {
		switch m.Role {
		case providers.RoleSystem:
			if m.Content == "" {
				continue
			}
			out = append(out, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: m.Content})
		case providers.RoleUser:
			out = append(out, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: orDefault(m.Content, emptyUserText)})
		case providers.RoleAssistant:
			om := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: m.Content}
			for j, tc := range m.ToolCalls {
				if tc.ID == "" || tc.Name == "" {
					return nil, fmt.Errorf("message %d: tool call %d has no id or name; drop or repair it before sending the conversation", i, j)
				}
				om.ToolCalls = append(om.ToolCalls, openai.ToolCall{
					ID:   tc.ID,
					Type: openai.ToolTypeFunction,
					Function: openai.FunctionCall{
						Name:      tc.Name,
						Arguments: orDefault(tc.Arguments, "{}"),
					},
				})
			}
			if len(om.ToolCalls) == 0 {
				om.Content = orDefault(m.Content, emptyAssistant)
			}
			out = append(out, om)
		case providers.RoleTool:
			if m.ToolCallID == "" {
				return nil, fmt.Errorf("message %d: tool result has no tool_call_id; it must answer a tool call of the preceding assistant message", i)
			}
			out = append(out, openai.ChatCompletionMessage{
				Role:       openai.ChatMessageRoleTool,
				Content:    orDefault(m.Content, emptyToolOutput),
				ToolCallID: m.ToolCallID,
			})
		default:
			return nil, fmt.Errorf("message %d: unknown role %q (want system, user, assistant or tool)", i, m.Role)
		}
	}
	return out, nil
}

// ConvertTools maps tool specs to []openai.Tool function tools. A spec
// without parameters gets an empty object schema; parameters that are not
// valid JSON are an error. Nil or empty input gives a nil slice.
func (t *chatTransport) ConvertTools(tools []providers.ToolSpec) (any, error) {
	return convertTools(tools)
}

func convertTools(tools []providers.ToolSpec) ([]openai.Tool, error) {
	if len(tools) == 0 {
		return nil, nil
	}
	out := make([]openai.Tool, 0, len(tools))
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
		out = append(out, openai.Tool{
			Type: openai.ToolTypeFunction,
			Function: &openai.FunctionDefinition{
				Name:        ts.Name,
				Description: ts.Description,
				Parameters:  params,
			},
		})
	}
	return out, nil
}

// BuildRequest builds the streamed openai.ChatCompletionRequest: stream on,
// usage requested, tools only when there are some, and the output cap as
// max_tokens (understood by every local server), or max_completion_tokens
// for the OpenAI reasoning models that refuse max_tokens.
func (t *chatTransport) BuildRequest(req providers.Request) (any, error) {
	return t.buildRequest(req)
}

func (t *chatTransport) buildRequest(req providers.Request) (openai.ChatCompletionRequest, error) {
	model := req.Model
	if model == "" {
		model = t.ep.Model
	}
	if model == "" {
		return openai.ChatCompletionRequest{}, fmt.Errorf("%s: no model set; set model.name in the config or pass --model", t.ep.Provider)
	}
	msgs, err := convertMessages(req.Messages)
	if err != nil {
		return openai.ChatCompletionRequest{}, err
	}
	tools, err := convertTools(req.Tools)
	if err != nil {
		return openai.ChatCompletionRequest{}, err
	}
	out := openai.ChatCompletionRequest{
		Model:         model,
		Messages:      msgs,
		Stream:        true,
		StreamOptions: &openai.StreamOptions{IncludeUsage: true},
		Tools:         tools,
	}
	if req.MaxTokens > 0 {
		if refusesMaxTokens(model) {
			out.MaxCompletionTokens = req.MaxTokens
		} else {
			out.MaxTokens = req.MaxTokens
		}
	}
	return out, nil
}

// refusesMaxTokens reports the OpenAI reasoning models for which the API
// (and go-openai's request validator) reject max_tokens.
func refusesMaxTokens(model string) bool {
	for _, p := range []string{"o1", "o3", "o4", "gpt-5", "gpt-6"} {
		if strings.HasPrefix(model, p) {
			return true
		}
	}
	return false
}

// MapFinishReason maps a wire finish_reason onto the normalized set:
// function_call becomes tool_calls, a few spellings used by compatible
// servers are folded in, and unknown values count as stop. "" stays "".
func (t *chatTransport) MapFinishReason(wire string) string { return mapFinishReason(wire) }

func mapFinishReason(wire string) string {
	switch strings.ToLower(wire) {
	case "":
		return ""
	case "stop", "eos", "end_turn", "stop_sequence":
		return providers.FinishStop
	case "length", "max_tokens", "model_length":
		return providers.FinishLength
	case "tool_calls", "function_call", "tool_use":
		return providers.FinishToolCalls
	case "content_filter", "refusal", "safety":
		return providers.FinishContentFilter
	case "error", "abort":
		return providers.FinishError
	default:
		return providers.FinishStop
	}
}

// ValidateResponse rejects a response that carries nothing at all (no
// content, tool calls, reasoning or finish reason); the error wraps
// ErrEmptyResponse.
func (t *chatTransport) ValidateResponse(r *providers.Response) error {
	if r.Empty() {
		return fmt.Errorf("%s: %w: no content, tool calls, reasoning or finish reason; retry the request", t.ep.Provider, ErrEmptyResponse)
	}
	return nil
}

// NormalizeResponse turns a complete (non-streamed) response into a
// Response. raw may be an openai.ChatCompletionResponse (or a pointer to
// one), or the response body as []byte / json.RawMessage, which also keeps
// the fields go-openai does not model (reasoning, extra_content).
func (t *chatTransport) NormalizeResponse(raw any) (*providers.Response, error) {
	body, err := responseJSON(raw)
	if err != nil {
		return nil, err
	}
	return decodeFullResponse(body)
}

// CacheStats returns the prompt-cache reads of a complete response (same
// inputs as NormalizeResponse). Chat Completions reports no cache writes.
func (t *chatTransport) CacheStats(raw any) (read, write int) {
	body, err := responseJSON(raw)
	if err != nil {
		return 0, 0
	}
	var r struct {
		Usage *wireUsage `json:"usage"`
	}
	if json.Unmarshal(body, &r) != nil || r.Usage == nil {
		return 0, 0
	}
	return r.Usage.cached(), 0
}

// responseJSON gives the JSON text of a complete response.
func responseJSON(raw any) ([]byte, error) {
	switch v := raw.(type) {
	case []byte:
		return v, nil
	case json.RawMessage:
		return v, nil
	case openai.ChatCompletionResponse:
		return json.Marshal(v)
	case *openai.ChatCompletionResponse:
		if v == nil {
			return nil, errors.New("nil *openai.ChatCompletionResponse")
		}
		return json.Marshal(v)
	default:
		return nil, fmt.Errorf("cannot normalize %T: want openai.ChatCompletionResponse or its JSON", raw)
	}
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
