package bedrock

import "encoding/json"

// The Converse request and response shapes, reduced to the fields this
// transport reads or writes. Field names follow the Bedrock Runtime API
// reference (Converse, ConverseStream).

// converseRequest is the body of converse and converse-stream.
type converseRequest struct {
	Messages        []wireMessage    `json:"messages"`
	System          []systemBlock    `json:"system,omitempty"`
	InferenceConfig *inferenceConfig `json:"inferenceConfig,omitempty"`
	ToolConfig      *toolConfig      `json:"toolConfig,omitempty"`
	// AdditionalModelRequestFields passes model-specific fields through.
	AdditionalModelRequestFields *additionalFields `json:"additionalModelRequestFields,omitempty"`
}

// additionalFields are the model-specific fields sent: extended thinking
// for Anthropic models.
type additionalFields struct {
	Thinking *thinking `json:"thinking,omitempty"`
}

// thinking turns an Anthropic model's extended thinking on with a budget.
type thinking struct {
	Type         string `json:"type"`
	BudgetTokens int    `json:"budget_tokens"`
}

type systemBlock struct {
	Text string `json:"text"`
}

type inferenceConfig struct {
	MaxTokens int `json:"maxTokens,omitempty"`
}

type toolConfig struct {
	Tools []wireTool `json:"tools"`
}

type wireTool struct {
	ToolSpec toolSpec `json:"toolSpec"`
}

type toolSpec struct {
	Name        string      `json:"name"`
	Description string      `json:"description,omitempty"`
	InputSchema inputSchema `json:"inputSchema"`
}

type inputSchema struct {
	JSON json.RawMessage `json:"json"`
}

// wireMessage is one entry of messages (request) or output.message.
type wireMessage struct {
	Role    string         `json:"role"`
	Content []contentBlock `json:"content"`
}

// contentBlock is a union: exactly one field is set.
type contentBlock struct {
	Text             *string           `json:"text,omitempty"`
	ToolUse          *toolUseBlock     `json:"toolUse,omitempty"`
	ToolResult       *toolResultBlock  `json:"toolResult,omitempty"`
	ReasoningContent *reasoningContent `json:"reasoningContent,omitempty"`
	// Image is an image of a user message (an attachment).
	Image *imageBlock `json:"image,omitempty"`
}

type toolUseBlock struct {
	ToolUseID string          `json:"toolUseId"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
}

type toolResultBlock struct {
	ToolUseID string            `json:"toolUseId"`
	Content   []toolResultEntry `json:"content"`
	Status    string            `json:"status,omitempty"`
}

// toolResultEntry is a union: text or image.
type toolResultEntry struct {
	Text  string      `json:"text,omitempty"`
	Image *imageBlock `json:"image,omitempty"`
}

// reasoningContent is a union of reasoningText and redactedContent (bytes,
// base64 in JSON).
type reasoningContent struct {
	ReasoningText   *reasoningText `json:"reasoningText,omitempty"`
	RedactedContent string         `json:"redactedContent,omitempty"`
}

type reasoningText struct {
	Text      string `json:"text"`
	Signature string `json:"signature,omitempty"`
}

// converseResponse is the JSON answer of converse.
type converseResponse struct {
	Output struct {
		Message *wireMessage `json:"message"`
	} `json:"output"`
	StopReason string     `json:"stopReason"`
	Usage      *wireUsage `json:"usage"`
}

type wireUsage struct {
	InputTokens           int `json:"inputTokens"`
	OutputTokens          int `json:"outputTokens"`
	TotalTokens           int `json:"totalTokens"`
	CacheReadInputTokens  int `json:"cacheReadInputTokens"`
	CacheWriteInputTokens int `json:"cacheWriteInputTokens"`
}

// Event payloads of converse-stream (the event name is in the
// ":event-type" header; the payload may carry a "p" padding field, ignored).

type blockStartEvent struct {
	ContentBlockIndex int `json:"contentBlockIndex"`
	Start             struct {
		ToolUse *struct {
			ToolUseID string `json:"toolUseId"`
			Name      string `json:"name"`
		} `json:"toolUse"`
	} `json:"start"`
}

type blockDeltaEvent struct {
	ContentBlockIndex int `json:"contentBlockIndex"`
	Delta             struct {
		Text    *string `json:"text"`
		ToolUse *struct {
			Input string `json:"input"`
		} `json:"toolUse"`
		ReasoningContent *struct {
			Text            string `json:"text"`
			Signature       string `json:"signature"`
			RedactedContent string `json:"redactedContent"`
		} `json:"reasoningContent"`
	} `json:"delta"`
}

type messageStopEvent struct {
	StopReason string `json:"stopReason"`
}

type metadataEvent struct {
	Usage *wireUsage `json:"usage"`
}
