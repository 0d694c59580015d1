package openaichat

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// chunk is one streamed chat.completion.chunk, or a complete
// chat.completion, decoded with the fields go-openai's types lack.
type chunk struct {
	Model   string       `json:"model"`
	Object  string       `json:"object"`
	Choices []wireChoice `json:"choices"`
	Usage   *wireUsage   `json:"usage"`
	// Error is set on OpenRouter-style error chunks ({"id":…,"error":{…}}).
	Error json.RawMessage `json:"error"`
	// Message is the legacy vLLM in-stream error {"object":"error","message":…}.
	Message flexText `json:"message"`
}

// wireChoice is one entry of choices: a delta when streamed, a message in
// a complete response.
type wireChoice struct {
	Index        int          `json:"index"`
	Delta        wireMessage  `json:"delta"`
	Message      *wireMessage `json:"message"`
	FinishReason *string      `json:"finish_reason"`
}

// wireMessage is a delta or a message. The reasoning fields may be null,
// strings, or (rarely) arrays of text parts; content may also be a list of
// typed parts that holds thinking (Mistral's Magistral models).
type wireMessage struct {
	Content          partsText      `json:"content"`
	Reasoning        flexText       `json:"reasoning"`
	ReasoningContent flexText       `json:"reasoning_content"`
	Refusal          flexText       `json:"refusal"`
	ToolCalls        []wireToolCall `json:"tool_calls"`
}

// wireToolCall is a tool call, whole or one fragment of it.
type wireToolCall struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string   `json:"name"`
		Arguments flexArgs `json:"arguments"`
	} `json:"function"`
	// ExtraContent carries Gemini thought signatures; kept verbatim.
	ExtraContent json.RawMessage `json:"extra_content"`
}

// wireUsage is the usage object, with the detail fields of OpenAI and the
// cache counter of DeepSeek.
type wireUsage struct {
	PromptTokens        flexInt `json:"prompt_tokens"`
	CompletionTokens    flexInt `json:"completion_tokens"`
	PromptTokensDetails *struct {
		CachedTokens flexInt `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails *struct {
		ReasoningTokens flexInt `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
	PromptCacheHitTokens flexInt `json:"prompt_cache_hit_tokens"`
}

// cached is the number of prompt tokens read from the provider's cache.
func (u *wireUsage) cached() int {
	if u.PromptTokensDetails != nil && u.PromptTokensDetails.CachedTokens > 0 {
		return int(u.PromptTokensDetails.CachedTokens)
	}
	return int(u.PromptCacheHitTokens)
}

// flexInt decodes a token count written as an integer, a float or null;
// anything else counts as 0 rather than failing the whole chunk.
type flexInt int

// UnmarshalJSON implements json.Unmarshaler.
func (n *flexInt) UnmarshalJSON(b []byte) error {
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		*n = 0
		return nil
	}
	*n = flexInt(f)
	return nil
}

// flexText decodes a JSON string, null, an array of text parts
// ([{"type":"text","text":…}], joined) or an array of strings (error
// messages, joined with ", ") into plain text.
type flexText string

// UnmarshalJSON implements json.Unmarshaler.
func (f *flexText) UnmarshalJSON(b []byte) error {
	switch {
	case len(b) > 0 && b[0] == '"':
		s, err := jsonString(b)
		if err != nil {
			return err
		}
		*f = flexText(s)
	case len(b) > 0 && b[0] == '[':
		var parts []json.RawMessage
		if err := json.Unmarshal(b, &parts); err != nil {
			return err
		}
		var sb strings.Builder
		for i, p := range parts {
			var s string
			if json.Unmarshal(p, &s) == nil {
				if i > 0 {
					sb.WriteString(", ") // a list of messages (go-openai issue 381)
				}
				sb.WriteString(s)
				continue
			}
			var part struct {
				Text string `json:"text"`
			}
			if json.Unmarshal(p, &part) == nil {
				sb.WriteString(part.Text)
			}
		}
		*f = flexText(sb.String())
	default:
		*f = ""
	}
	return nil
}

// partsText is a content field: a string, null, or a list of parts. A
// part is a string, a text part {"type":"text","text":…}, or a thinking
// part {"type":"thinking","thinking":…} whose thinking is a string or a
// list of text parts (Mistral). Text parts make up text, thinking parts
// thinking; parts of other types (images, references) are skipped.
type partsText struct {
	text, thinking string
}

// UnmarshalJSON implements json.Unmarshaler.
func (p *partsText) UnmarshalJSON(b []byte) error {
	*p = partsText{}
	if len(b) == 0 || b[0] != '[' {
		var f flexText
		err := f.UnmarshalJSON(b)
		p.text = string(f)
		return err
	}
	var parts []json.RawMessage
	if err := json.Unmarshal(b, &parts); err != nil {
		return err
	}
	var text, thinking strings.Builder
	for _, raw := range parts {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			text.WriteString(s)
			continue
		}
		var part struct {
			Type     string   `json:"type"`
			Text     string   `json:"text"`
			Thinking flexText `json:"thinking"`
		}
		if json.Unmarshal(raw, &part) != nil {
			continue
		}
		switch part.Type {
		case "thinking", "reasoning":
			thinking.WriteString(string(part.Thinking))
			if part.Thinking == "" {
				thinking.WriteString(part.Text)
			}
		case "text", "":
			text.WriteString(part.Text)
		}
	}
	p.text, p.thinking = text.String(), thinking.String()
	return nil
}

// flexArgs decodes function.arguments: normally a JSON string holding JSON
// text, but some servers send the arguments object itself.
type flexArgs string

// UnmarshalJSON implements json.Unmarshaler.
func (f *flexArgs) UnmarshalJSON(b []byte) error {
	if len(b) == 0 || b[0] != '"' {
		*f = flexArgs(b) // an object (or null) sent as itself
		if bytes.Equal(b, []byte("null")) {
			*f = ""
		}
		return nil
	}
	s, err := jsonString(b)
	*f = flexArgs(s)
	return err
}

// jsonString decodes a JSON string literal that the enclosing decoder has
// already validated; literals without escapes (most stream text) are
// sliced instead of decoded a second time.
func jsonString(b []byte) (string, error) {
	if len(b) >= 2 && b[len(b)-1] == '"' {
		if inner := b[1 : len(b)-1]; bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
			return string(inner), nil
		}
	}
	var s string
	err := json.Unmarshal(b, &s)
	return s, err
}
