package gemini

import "encoding/json"

// The generateContent request and response shapes, reduced to the fields
// this transport reads or writes. Field names follow the Gemini API
// reference (models.streamGenerateContent, GenerateContentResponse).

// generateRequest is the body of streamGenerateContent.
type generateRequest struct {
	Contents          []content         `json:"contents"`
	SystemInstruction *content          `json:"systemInstruction,omitempty"`
	Tools             []toolDecl        `json:"tools,omitempty"`
	GenerationConfig  *generationConfig `json:"generationConfig,omitempty"`
}

// content is one turn: role "user" or "model" (none for the system
// instruction) and its parts.
type content struct {
	Role  string `json:"role,omitempty"`
	Parts []part `json:"parts"`
}

// part is a union (text, functionCall, functionResponse) plus the thought
// flag and the opaque thoughtSignature that must be replayed verbatim.
type part struct {
	Text             *string           `json:"text,omitempty"`
	Thought          bool              `json:"thought,omitempty"`
	ThoughtSignature string            `json:"thoughtSignature,omitempty"`
	FunctionCall     *functionCall     `json:"functionCall,omitempty"`
	FunctionResponse *functionResponse `json:"functionResponse,omitempty"`
	InlineData       *inlineData       `json:"inlineData,omitempty"`
}

type functionCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

// functionResponse carries a tool result as {"result": text} or, for a
// failed call, {"error": text}.
type functionResponse struct {
	Name     string            `json:"name"`
	Response map[string]string `json:"response"`
}

type toolDecl struct {
	FunctionDeclarations []functionDecl `json:"functionDeclarations"`
}

type functionDecl struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

type generationConfig struct {
	MaxOutputTokens int             `json:"maxOutputTokens,omitempty"`
	ThinkingConfig  *thinkingConfig `json:"thinkingConfig,omitempty"`
	// ResponseMimeType and ResponseSchema ask for a JSON answer in a
	// schema (--output-schema).
	ResponseMimeType string          `json:"responseMimeType,omitempty"`
	ResponseSchema   json.RawMessage `json:"responseSchema,omitempty"`
}

type thinkingConfig struct {
	IncludeThoughts bool `json:"includeThoughts"`
	// ThinkingBudget is the thinking token budget; 0 leaves it out.
	ThinkingBudget int `json:"thinkingBudget,omitempty"`
}

// generateResponse is one streamed chunk (or a whole answer).
type generateResponse struct {
	Candidates     []candidate     `json:"candidates"`
	PromptFeedback *promptFeedback `json:"promptFeedback"`
	UsageMetadata  *usageMetadata  `json:"usageMetadata"`
	ModelVersion   string          `json:"modelVersion"`
	// Error is set when the server reports an error inside the stream;
	// providers.ParseErrorBody reads it.
	Error json.RawMessage `json:"error"`
}

// hasError reports an error member that is present and not null.
func (g *generateResponse) hasError() bool {
	return len(g.Error) > 0 && string(g.Error) != "null"
}

type candidate struct {
	Content      *content `json:"content"`
	FinishReason string   `json:"finishReason"`
	Index        int      `json:"index"`
}

type promptFeedback struct {
	BlockReason string `json:"blockReason"`
}

type usageMetadata struct {
	PromptTokenCount        int `json:"promptTokenCount"`
	CandidatesTokenCount    int `json:"candidatesTokenCount"`
	CachedContentTokenCount int `json:"cachedContentTokenCount"`
	ThoughtsTokenCount      int `json:"thoughtsTokenCount"`
	TotalTokenCount         int `json:"totalTokenCount"`
}

// errorDetail holds the fields of the details entries this transport
// reads: RetryInfo.retryDelay and ErrorInfo.reason.
type errorDetail struct {
	Type       string `json:"@type"`
	RetryDelay string `json:"retryDelay"`
	Reason     string `json:"reason"`
}
