package anthropic

import "encoding/json"

// The request body of POST /v1/messages, with only the fields this
// transport sends.

// request is the Messages API request body.
type request struct {
	Model     string     `json:"model"`
	MaxTokens int        `json:"max_tokens"`
	System    []block    `json:"system,omitempty"`
	Messages  []message  `json:"messages"`
	Tools     []toolSpec `json:"tools,omitempty"`
	Thinking  *thinking  `json:"thinking,omitempty"`
	Stream    bool       `json:"stream"`
}

// message is one user or assistant turn.
type message struct {
	Role    string  `json:"role"`
	Content []block `json:"content"`
}

// block is a content block of any type sent: text, image, tool_use,
// tool_result, thinking, redacted_thinking. Each type sets only its own fields; a
// thinking block's text is a pointer so that an empty one is still sent.
type block struct {
	Type         string          `json:"type"`
	Text         string          `json:"text,omitempty"`
	ID           string          `json:"id,omitempty"`
	Name         string          `json:"name,omitempty"`
	Input        json.RawMessage `json:"input,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	Content      []block         `json:"content,omitempty"`
	Thinking     *string         `json:"thinking,omitempty"`
	Signature    string          `json:"signature,omitempty"`
	Data         string          `json:"data,omitempty"`
	Source       *imageSource    `json:"source,omitempty"`
	CacheControl *cacheControl   `json:"cache_control,omitempty"`
}

// imageSource is the source of an image block: base64 data.
type imageSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

// cacheControl is a prompt-cache breakpoint.
type cacheControl struct {
	Type string `json:"type"`
}

// ephemeral is the only cache_control type the API has.
var ephemeral = cacheControl{Type: "ephemeral"}

// toolSpec is a custom tool.
type toolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// thinking turns extended thinking on with a token budget.
type thinking struct {
	Type         string `json:"type"`
	BudgetTokens int    `json:"budget_tokens"`
}
