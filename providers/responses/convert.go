package responses

import (
	"encoding/json"
	"fmt"
	"strings"

	"talaria/providers"
)

// encryptedReasoning is the include value that makes the API return the
// encrypted reasoning items a stateless ("store": false) call must replay.
const encryptedReasoning = "reasoning.encrypted_content"

// requestBody is the JSON body of a POST /responses call.
type requestBody struct {
	// Model is the model id.
	Model string `json:"model"`
	// Instructions holds the system messages, joined by blank lines.
	Instructions string `json:"instructions,omitempty"`
	// Input is the conversation as input items.
	Input []inputItem `json:"input"`
	// Tools are the function tools offered.
	Tools []functionTool `json:"tools,omitempty"`
	// Stream is always true for Stream.
	Stream bool `json:"stream"`
	// Store is false: the whole conversation is sent on every call.
	Store bool `json:"store"`
	// Include asks for encrypted reasoning on reasoning models.
	Include []string `json:"include,omitempty"`
	// Reasoning asks reasoning models for reasoning summaries.
	Reasoning *reasoningConfig `json:"reasoning,omitempty"`
	// MaxOutputTokens is the output cap; 0 leaves it to the server.
	MaxOutputTokens int `json:"max_output_tokens,omitempty"`
	// Text carries text.format, the structured-output request.
	Text *textConfig `json:"text,omitempty"`
}

// textConfig is the "text" parameter: {format: {type: json_schema, name,
// schema, strict}} when a final answer in a JSON Schema is asked for.
type textConfig struct {
	Format textFormat `json:"format"`
}

// textFormat is text.format of type json_schema.
type textFormat struct {
	Type   string          `json:"type"`
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Strict bool            `json:"strict"`
}

// reasoningConfig is the "reasoning" parameter.
type reasoningConfig struct {
	// Summary is the reasoning summary wanted ("auto").
	Summary string `json:"summary,omitempty"`
	// Effort is the reasoning effort ("low", "medium", "high"); empty
	// leaves the model's default.
	Effort string `json:"effort,omitempty"`
}

// inputItem is one entry of "input": a message (Type "message", Role and
// Content), a function_call (CallID, Name, Arguments), a
// function_call_output (CallID, Output), or a replayed item (Raw, sent
// verbatim).
type inputItem struct {
	Type    string `json:"type"`
	Role    string `json:"role,omitempty"`
	Content string `json:"content,omitempty"`
	// Parts, when set, is the content as a list of input parts instead.
	Parts     []inputPart `json:"-"`
	CallID    string      `json:"call_id,omitempty"`
	Name      string      `json:"name,omitempty"`
	Arguments string      `json:"arguments,omitempty"`
	Output    string      `json:"output,omitempty"`
	// Raw, when set, is the whole item, sent as it is.
	Raw json.RawMessage `json:"-"`
}

// MarshalJSON implements json.Marshaler: Raw when set, else the fields.
func (it inputItem) MarshalJSON() ([]byte, error) {
	if len(it.Raw) > 0 {
		return it.Raw, nil
	}
	type fields inputItem
	if len(it.Parts) > 0 {
		return json.Marshal(struct {
			fields
			Content []inputPart `json:"content"`
		}{fields: fields(it), Content: it.Parts})
	}
	return json.Marshal(fields(it))
}

// functionTool is one entry of "tools". Strict is sent as false: the API
// defaults it to true, which rejects schemas that do not list every
// property as required.
type functionTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      bool            `json:"strict"`
}

// convertMessages maps neutral messages to the instructions and the input
// items. System messages become "instructions"; user and assistant text
// become message items, assistant tool calls function_call items, tool
// results function_call_output items (text; the images of a batch of
// results follow it in one user message of input_image parts), and the
// reasoning items kept in an
// assistant message's ReasoningReplay go back just before it.
func convertMessages(msgs []providers.Message, sent [][]providers.Image) (string, []inputItem, error) {
	var system []string
	items := make([]inputItem, 0, len(msgs))
	var batch []inputPart // image parts of the batch of tool results so far
	for i, m := range msgs {
		switch m.Role {
		case providers.RoleSystem:
			if strings.TrimSpace(m.Content) != "" {
				system = append(system, m.Content)
			}
		case providers.RoleUser:
			if ims := imagesAt(sent, i); len(ims) > 0 {
				items = append(items, inputItem{Type: "message", Role: "user", Parts: userParts(m.Content, ims)})
				continue
			}
			items = append(items, inputItem{Type: "message", Role: "user", Content: orDefault(m.Content, providers.PlaceholderUser)})
		case providers.RoleAssistant:
			items = append(items, replayItems(m.ReasoningReplay)...)
			if strings.TrimSpace(m.Content) != "" {
				items = append(items, inputItem{Type: "message", Role: "assistant", Content: m.Content})
			}
			for j, tc := range m.ToolCalls {
				if tc.ID == "" || tc.Name == "" {
					return "", nil, fmt.Errorf("message %d: tool call %d has no id or name; drop or repair it before sending the conversation", i, j)
				}
				items = append(items, inputItem{Type: "function_call", CallID: tc.ID, Name: tc.Name, Arguments: orDefault(tc.Arguments, "{}")})
			}
		case providers.RoleTool:
			if m.ToolCallID == "" {
				return "", nil, fmt.Errorf("message %d: tool result has no tool_call_id; it must answer a tool call of the preceding assistant message", i)
			}
			items = append(items, inputItem{Type: "function_call_output", CallID: m.ToolCallID, Output: orDefault(m.Content, providers.PlaceholderToolOutput)})
			if sent != nil {
				batch = appendImageParts(batch, &m, sent[i])
			}
			if len(batch) > 0 && (i+1 == len(msgs) || msgs[i+1].Role != providers.RoleTool) {
				items = append(items, inputItem{Type: "message", Role: "user", Parts: batch})
				batch = nil
			}
		default:
			return "", nil, fmt.Errorf("message %d: unknown role %q (want system, user, assistant or tool)", i, m.Role)
		}
	}
	return strings.Join(system, "\n\n"), items, nil
}

// replayItems returns the reasoning items of a ReasoningReplay written by
// this transport, each without its "id" and "status": with "store": false
// the server kept nothing an id could refer to, and the encrypted content
// carries the reasoning. Replay data of another format gives nil.
func replayItems(raw json.RawMessage) []inputItem {
	r, ok := parseReplay(raw)
	if !ok {
		return nil
	}
	out := make([]inputItem, 0, len(r.Items))
	for _, item := range r.Items {
		var fields map[string]json.RawMessage
		if json.Unmarshal(item, &fields) != nil || fields == nil {
			continue
		}
		delete(fields, "id")
		delete(fields, "status")
		b, err := json.Marshal(fields)
		if err != nil {
			continue
		}
		out = append(out, inputItem{Raw: b})
	}
	return out
}

// convertTools maps tool specs to function tools, with the JSON schema
// passed through verbatim. A spec without parameters gets an empty object
// schema; parameters that are not valid JSON are an error.
func convertTools(tools []providers.ToolSpec) ([]functionTool, error) {
	return providers.ConvertTools(tools, func(ts *providers.ToolSpec) (functionTool, error) {
		params, err := ts.WireParams()
		return functionTool{Type: "function", Name: ts.Name, Description: ts.Description, Parameters: params}, err
	})
}

// buildBody builds the body of a call: model, instructions, input items,
// tools, "stream": true, "store": false, max_output_tokens when set, and
// for reasoning models (o1, o3, o4, gpt-5, codex…, or any model when a
// reasoning effort is asked for) reasoning summaries, the effort and
// encrypted reasoning.
func (t *transport) buildBody(req providers.Request) (*requestBody, error) {
	model, err := t.ep.ModelFor(req, providers.ModelHint)
	if err != nil {
		return nil, err
	}
	instructions, items, err := convertMessages(req.Messages, sentImages(model, req.Messages))
	if err != nil {
		return nil, err
	}
	tools, err := convertTools(req.Tools)
	if err != nil {
		return nil, err
	}
	body := &requestBody{
		Model:           model,
		Instructions:    instructions,
		Input:           items,
		Tools:           tools,
		Stream:          true,
		MaxOutputTokens: max(req.MaxTokens, 0),
	}
	if f := req.ResponseFormat; f != nil {
		body.Text = &textConfig{Format: textFormat{Type: "json_schema", Name: f.Name, Schema: f.Schema, Strict: f.Strict}}
	}
	if isReasoningModel(model) || req.ReasoningEffort != "" {
		body.Include = []string{encryptedReasoning}
		body.Reasoning = &reasoningConfig{Summary: "auto", Effort: req.ReasoningEffort}
	}
	return body, nil
}

// isReasoningModel reports the OpenAI models that reason, for which the
// reasoning parameter and encrypted reasoning are asked; other models
// answer 400 to the reasoning parameter.
func isReasoningModel(model string) bool {
	m := strings.ToLower(providers.ModelBase(model)) // openai/gpt-5 through a router
	for _, p := range []string{"o1", "o3", "o4", "gpt-5", "codex"} {
		if strings.HasPrefix(m, p) {
			return true
		}
	}
	return false
}

func orDefault(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}
