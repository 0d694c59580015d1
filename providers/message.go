// Package providers holds the provider-neutral message and tool-call types,
// the Transport a wire implements (one streamed call; each wire's
// conversions are unexported in its sub-package), the registry of wires by
// api_mode, the one error-body parser every wire calls and the classifier
// reads, error classification, backoff, credential pools and the fallback
// chain.
package providers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Role is the author of a message.
type Role string

// The four message roles.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Normalized finish reasons. Transports map their wire values onto these.
const (
	FinishStop          = "stop"
	FinishLength        = "length"
	FinishToolCalls     = "tool_calls"
	FinishContentFilter = "content_filter"
	FinishError         = "error"
)

// Placeholders the wires send instead of an empty text, which most APIs
// refuse (a 400 on an empty or whitespace-only content).
const (
	PlaceholderToolOutput = "(no output)"
	PlaceholderUser       = "(empty message)"
	PlaceholderAssistant  = "(empty response)"
)

// EmptyObjectSchema is the parameters schema sent for a tool that declares
// none.
const EmptyObjectSchema = `{"type":"object","properties":{}}`

// ToolCall is one function call requested by the model.
type ToolCall struct {
	// ID is the provider's tool_call_id (e.g. "call_…", or 32 alphanumerics
	// from llama.cpp); the matching tool result carries it back.
	ID string `json:"id"`
	// Name is the tool name as the model wrote it.
	Name string `json:"name"`
	// Arguments is the raw JSON text of the arguments, as streamed.
	Arguments string `json:"arguments"`
	// Extra holds provider data that must be replayed verbatim with this
	// call (for example Gemini thought signatures under extra_content).
	Extra json.RawMessage `json:"extra,omitempty"`
}

// Message is one entry of a conversation in provider-neutral form.
type Message struct {
	Role       Role       `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	// ToolName is the tool a role=tool message answers (not sent on wires
	// that do not accept it).
	ToolName string `json:"tool_name,omitempty"`
	// Images are image parts of a role=tool message (a tool's result) or
	// of a role=user message (images the user attached), for wires that
	// take images; Content holds a placeholder for each.
	Images []Image `json:"images,omitempty"`
	// Reasoning is the model's visible thinking text, if any.
	Reasoning string `json:"reasoning,omitempty"`
	// ReasoningReplay holds opaque provider data needed to replay the
	// reasoning (thinking-block signatures, encrypted items).
	ReasoningReplay json.RawMessage `json:"reasoning_replay,omitempty"`
	// FinishReason is the normalized finish reason of an assistant message.
	FinishReason string `json:"finish_reason,omitempty"`
	// Timestamp is Unix milliseconds when the message was made.
	Timestamp int64 `json:"timestamp,omitempty"`
	// ToolStatus is how a role=tool message's call ended, as the screen
	// showed it live (ToolStatusOK, ...; "" in sessions saved before it
	// was recorded). It is saved, never sent to a provider.
	ToolStatus string `json:"tool_status,omitempty"`
	// Internal holds scaffolding flags whose keys start with "_". They never
	// leave the process: not marshalled, not saved, not sent.
	Internal map[string]any `json:"-"`
}

// Flag reports whether the internal key is set to a truthy value.
func (m *Message) Flag(key string) bool {
	if m.Internal == nil {
		return false
	}
	v, ok := m.Internal[key]
	if !ok {
		return false
	}
	b, isBool := v.(bool)
	return !isBool || b
}

// SetFlag sets an internal key. Keys must start with "_".
func (m *Message) SetFlag(key string, v any) {
	if !strings.HasPrefix(key, "_") {
		key = "_" + key
	}
	if m.Internal == nil {
		m.Internal = map[string]any{}
	}
	m.Internal[key] = v
}

// FlagToolError is the internal flag on a role=tool message whose call
// failed; wires with a failure field (Bedrock, Gemini) read it through
// ToolFailed.
const FlagToolError = "_tool_error"

// ToolFailed reports whether m, a role=tool message, is the result of a
// failed call: FlagToolError is set, or its text starts with "Error:" (the
// tools.Errorf convention).
func (m *Message) ToolFailed() bool {
	return m.Flag(FlagToolError) || strings.HasPrefix(m.Content, "Error:")
}

// ToolSpec describes one tool offered to the model.
type ToolSpec struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Parameters is the JSON Schema of the arguments object.
	Parameters json.RawMessage `json:"parameters"`
}

// WireParams checks ts and returns the parameters schema to send: its
// Parameters (spaces trimmed), or EmptyObjectSchema when it declares none.
// A spec without a name, or whose parameters are not valid JSON, is an
// error naming what to fix.
func (ts *ToolSpec) WireParams() (json.RawMessage, error) {
	if ts.Name == "" {
		return nil, errToolName
	}
	params := json.RawMessage(bytes.TrimSpace(ts.Parameters))
	switch {
	case len(params) == 0 || string(params) == "null":
		return json.RawMessage(EmptyObjectSchema), nil
	case !json.Valid(params):
		return nil, fmt.Errorf("tool %q: parameters is not valid JSON; fix its JSON schema", ts.Name)
	}
	return params, nil
}

// errToolName is the error of a tool spec without a name.
var errToolName = errors.New("tool spec without a name; every tool needs one")

// ConvertTools maps tool specs, in order, to a wire's tool type with conv;
// no specs give nil. A spec without a name is an error, as is any error
// conv returns for a spec (conv wraps its own, naming the tool).
func ConvertTools[T any](tools []ToolSpec, conv func(ts *ToolSpec) (T, error)) ([]T, error) {
	if len(tools) == 0 {
		return nil, nil
	}
	out := make([]T, 0, len(tools))
	for i := range tools {
		ts := &tools[i]
		if ts.Name == "" {
			return nil, errToolName
		}
		t, err := conv(ts)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// Usage is the token accounting of one response.
type Usage struct {
	InputTokens      int `json:"input_tokens"`
	OutputTokens     int `json:"output_tokens"`
	CacheReadTokens  int `json:"cache_read_tokens"`
	CacheWriteTokens int `json:"cache_write_tokens"`
	ReasoningTokens  int `json:"reasoning_tokens,omitempty"`
}

// Add accumulates o into u.
func (u *Usage) Add(o Usage) {
	u.InputTokens += o.InputTokens
	u.OutputTokens += o.OutputTokens
	u.CacheReadTokens += o.CacheReadTokens
	u.CacheWriteTokens += o.CacheWriteTokens
	u.ReasoningTokens += o.ReasoningTokens
}

// Request is one model call in neutral form.
type Request struct {
	Model    string
	Messages []Message
	// Tools offered; nil means a call without tools.
	Tools []ToolSpec
	// MaxTokens is the output cap; 0 leaves it to the provider.
	MaxTokens int
	// ReasoningEffort asks for reasoning/thinking: "" (off, the wire's
	// default), "low", "medium" or "high". Each wire maps it to its own field.
	ReasoningEffort string
	// AppendOnly promises that Messages comes from an append-only list:
	// its maker never writes a slot of a backing array it handed out in an
	// earlier request (it moves to a new array instead), except the first
	// message, which a fallback may rewrite. A transport may then take a
	// slot other than the first, at the same address as in its last
	// request, to hold the same message without comparing it. false (the
	// default) promises nothing: every message is compared.
	AppendOnly bool
	// ResponseFormat, when set, asks for a final answer in JSON valid
	// against a schema (see ResponseFormat); nil asks for nothing.
	ResponseFormat *ResponseFormat
}

// Response is a normalized model response.
type Response struct {
	Content   string
	Reasoning string
	// ReasoningReplay is opaque data to replay with the assistant message.
	ReasoningReplay json.RawMessage
	ToolCalls       []ToolCall
	// FinishReason is normalized (FinishStop, FinishLength, ...).
	FinishReason string
	// RawFinishReason is what the wire said.
	RawFinishReason string
	Usage           Usage
	Model           string
}

// Empty reports a response that carries nothing at all: no content, tool
// calls, reasoning, replay data or finish reason. Transports' validators
// reject it.
func (r *Response) Empty() bool {
	return r == nil || (r.Content == "" && len(r.ToolCalls) == 0 && r.Reasoning == "" &&
		len(r.ReasoningReplay) == 0 && r.FinishReason == "" && r.RawFinishReason == "")
}

// Message converts the response into an assistant message.
func (r *Response) Message() Message {
	return Message{
		Role:            RoleAssistant,
		Content:         r.Content,
		ToolCalls:       r.ToolCalls,
		Reasoning:       r.Reasoning,
		ReasoningReplay: r.ReasoningReplay,
		FinishReason:    r.FinishReason,
	}
}

// DeltaKind says what a streamed Delta carries.
type DeltaKind int

// The kinds of streamed deltas.
const (
	DeltaText DeltaKind = iota
	DeltaReasoning
	// DeltaToolCall announces a tool call (its index and, once known, name).
	DeltaToolCall
)

// OnDelta receives the fragments of a streamed response; nil drops them.
type OnDelta func(Delta)

// Emit reports d, unless f is nil.
func (f OnDelta) Emit(d Delta) {
	if f != nil {
		f(d)
	}
}

// Delta is one streamed fragment, reported while a response arrives.
type Delta struct {
	Kind      DeltaKind
	Text      string
	ToolIndex int
	ToolName  string
}

// The values of Message.ToolStatus.
const (
	ToolStatusOK        = "ok"
	ToolStatusFailed    = "failed"
	ToolStatusDenied    = "denied"
	ToolStatusCancelled = "cancelled"
)
