package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"talaria/providers"
)

// replayKey is the key under which ReasoningReplay holds the signature of
// the answer's non-call parts: {"gemini_native":{"thought_signature":"…"}}.
// Keyed, so replay data of another transport is never sent here.
const replayKey = APIMode

// callExtra is the shape of ToolCall.Extra for a Gemini call: the same as
// the OpenAI-compatible endpoint's extra_content, so a conversation can
// move between chat_completions on Gemini and gemini_native.
type callExtra struct {
	Google struct {
		ThoughtSignature string `json:"thought_signature"`
	} `json:"google"`
}

// replayData is the shape of ReasoningReplay under replayKey.
type replayData struct {
	ThoughtSignature string `json:"thought_signature"`
}

// convertMessages maps neutral messages to Gemini contents; system
// messages are left out (buildRequest sends them as systemInstruction). Assistant messages become role "model" with a text
// part and one functionCall part per call, each carrying back the
// thoughtSignature it came with (ToolCall.Extra, or ReasoningReplay for the
// text part); reasoning text is not sent back. Tool results become
// functionResponse parts of a role "user" turn, consecutive results in one
// turn, each followed by its images as inlineData parts (within
// imageBudget()), the name taken from ToolName or from the call they answer;
// a user message's images follow its text as inlineData parts.
func convertMessages(msgs []providers.Message) ([]content, error) {
	out := make([]content, 0, len(msgs))
	names := map[string]string{} // tool-call id -> name
	lastTool := false            // out's last turn holds function responses
	add := func(role string, tool bool, p ...part) {
		if n := len(out); n > 0 && out[n-1].Role == role && lastTool == tool {
			out[n-1].Parts = append(out[n-1].Parts, p...)
			return
		}
		out = append(out, content{Role: role, Parts: p})
		lastTool = tool
	}
	sent := imageBudget().Select(msgs)
	for i, m := range msgs {
		switch m.Role {
		case providers.RoleSystem:
			continue
		case providers.RoleUser:
			add("user", false, textPart(orDefault(m.Content, providers.PlaceholderUser)))
			if sent != nil {
				add("user", false, imageParts(sent[i])...)
			}
		case providers.RoleAssistant:
			parts, err := modelParts(i, m, names)
			if err != nil {
				return nil, err
			}
			add("model", false, parts...)
		case providers.RoleTool:
			name := m.ToolName
			if name == "" {
				name = names[m.ToolCallID]
			}
			if name == "" {
				return nil, fmt.Errorf("message %d: tool result has no tool name and answers no known call (id %q); Gemini needs the function name", i, m.ToolCallID)
			}
			key := "result"
			if m.ToolFailed() {
				key = "error"
			}
			add("user", true, part{FunctionResponse: &functionResponse{
				Name:     name,
				Response: map[string]string{key: orDefault(m.Content, providers.PlaceholderToolOutput)},
			}})
			if sent != nil {
				add("user", true, imageParts(sent[i])...)
			}
		default:
			return nil, fmt.Errorf("message %d: unknown role %q (want system, user, assistant or tool)", i, m.Role)
		}
	}
	return out, nil
}

// modelParts converts one assistant message and records its call names.
func modelParts(i int, m providers.Message, names map[string]string) ([]part, error) {
	var parts []part
	if sig := replaySignature(m.ReasoningReplay); m.Content != "" || sig != "" {
		p := textPart(m.Content)
		p.ThoughtSignature = sig
		parts = append(parts, p)
	}
	for j, tc := range m.ToolCalls {
		if tc.Name == "" {
			return nil, fmt.Errorf("message %d: tool call %d has no name; drop or repair it before sending the conversation", i, j)
		}
		if tc.ID != "" {
			names[tc.ID] = tc.Name
		}
		parts = append(parts, part{
			FunctionCall:     &functionCall{Name: tc.Name, Args: argsObject(tc.Arguments)},
			ThoughtSignature: extraSignature(tc.Extra),
		})
	}
	if len(parts) == 0 {
		parts = append(parts, textPart(providers.PlaceholderAssistant))
	}
	return parts, nil
}

// argsObject returns tool-call arguments as the object functionCall.args
// requires; empty, invalid or non-object arguments are sent as {}.
func argsObject(args string) json.RawMessage {
	b := bytes.TrimSpace([]byte(args))
	if len(b) > 0 && b[0] == '{' && json.Valid(b) {
		return b
	}
	return json.RawMessage(`{}`)
}

func extraSignature(raw json.RawMessage) string {
	var e callExtra
	if len(raw) == 0 || json.Unmarshal(raw, &e) != nil {
		return ""
	}
	return e.Google.ThoughtSignature
}

func replaySignature(raw json.RawMessage) string {
	var keyed map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &keyed) != nil {
		return ""
	}
	var r replayData
	if json.Unmarshal(keyed[replayKey], &r) != nil {
		return ""
	}
	return r.ThoughtSignature
}

// convertTools maps tool specs to one Gemini tool holding all function
// declarations. Parameters are cleaned by sanitizeSchema
// (see schema.go for the keys kept and dropped) and left out when the
// tool takes none; parameters that are not a JSON object are an error.
// Nil or empty input gives a nil slice.

func convertTools(tools []providers.ToolSpec) ([]toolDecl, error) {
	decls, err := providers.ConvertTools(tools, func(ts *providers.ToolSpec) (functionDecl, error) {
		params, err := sanitizeSchema(ts.Parameters)
		if err != nil {
			return functionDecl{}, fmt.Errorf("tool %q: %w; fix its JSON schema", ts.Name, err)
		}
		return functionDecl{Name: ts.Name, Description: ts.Description, Parameters: params}, nil
	})
	if err != nil || len(decls) == 0 {
		return nil, err
	}
	return []toolDecl{{FunctionDeclarations: decls}}, nil
}

// buildRequest builds the streamGenerateContent body: systemInstruction
// from the system messages (one part each), the contents, the tools, and
// generationConfig with maxOutputTokens when req.MaxTokens is set and, for
// thinking models (gemini-2.5, gemini-3), thinkingConfig.includeThoughts
// and the thinkingBudget of the reasoning effort when one is asked for.

func buildRequest(req providers.Request, defaultModel string) (*generateRequest, error) {
	msgs, err := convertMessages(req.Messages)
	if err != nil {
		return nil, err
	}
	tools, err := convertTools(req.Tools)
	if err != nil {
		return nil, err
	}
	out := &generateRequest{Contents: msgs, Tools: tools}
	for _, m := range req.Messages {
		if m.Role == providers.RoleSystem && m.Content != "" {
			if out.SystemInstruction == nil {
				out.SystemInstruction = &content{}
			}
			out.SystemInstruction.Parts = append(out.SystemInstruction.Parts, textPart(m.Content))
		}
	}
	model := strings.TrimPrefix(orDefault(req.Model, defaultModel), "models/")
	if req.MaxTokens > 0 || thinks(model) {
		out.GenerationConfig = &generationConfig{MaxOutputTokens: req.MaxTokens}
		if thinks(model) {
			out.GenerationConfig.ThinkingConfig = &thinkingConfig{IncludeThoughts: true, ThinkingBudget: thinkingBudgets[req.ReasoningEffort]}
		}
	}
	if err := askSchema(out, req, model); err != nil {
		return nil, err
	}
	return out, nil
}

// askSchema sets responseMimeType application/json and responseSchema
// (the schema in Gemini's OpenAPI subset, see sanitizeSchema) when a
// final answer in a schema is asked for. Gemini before 3 refuses a JSON
// mime type together with function declarations ("Function calling with
// a response mime type: 'application/json' is unsupported"), so with
// tools on an older model only the prompt's instruction and the loop's
// validation hold the answer to the schema.
func askSchema(out *generateRequest, req providers.Request, model string) error {
	f := req.ResponseFormat
	if f == nil || (len(out.Tools) > 0 && !strings.HasPrefix(model, "gemini-3")) {
		return nil
	}
	schema, err := sanitizeSchema(f.Schema)
	if err != nil {
		return fmt.Errorf("--output-schema: %w", err)
	}
	if out.GenerationConfig == nil {
		out.GenerationConfig = &generationConfig{}
	}
	out.GenerationConfig.ResponseMimeType = "application/json"
	out.GenerationConfig.ResponseSchema = schema
	return nil
}

// Thinking budgets (thinkingBudget, in tokens) for the reasoning efforts;
// 24576 is the most gemini-2.5-flash takes. No effort leaves the model's
// own dynamic budget.
var thinkingBudgets = map[string]int{"low": 1024, "medium": 8192, "high": 24576}

func textPart(s string) part { return part{Text: &s} }

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
