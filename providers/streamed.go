package providers

import (
	"bytes"
	"encoding/json"
	"strings"
)

// IncompleteExtra is the ToolCall.Extra of a call whose arguments were
// cut off before the wire closed the call (the stream ended inside it): it
// must not run.
const IncompleteExtra = `{"incomplete":true}`

// Streamed gathers a response's text and reasoning as they arrive and
// reports each non-empty piece to OnDelta: the part of a response that
// every wire's assembler builds the same way.
type Streamed struct {
	OnDelta            OnDelta
	content, reasoning strings.Builder
	model              string
}

// SetModel records the model id the answer names; "" (a chunk that names
// none) keeps the one recorded before.
func (s *Streamed) SetModel(model string) {
	if model != "" {
		s.model = model
	}
}

// AddText appends s to the content and reports it as a DeltaText; "" is
// ignored.
func (s *Streamed) AddText(text string) {
	if text == "" {
		return
	}
	s.content.WriteString(text)
	s.OnDelta.Emit(Delta{Kind: DeltaText, Text: text})
}

// AddReasoning appends text to the reasoning and reports it as a
// DeltaReasoning; "" is ignored.
func (s *Streamed) AddReasoning(text string) {
	if text == "" {
		return
	}
	s.reasoning.WriteString(text)
	s.OnDelta.Emit(Delta{Kind: DeltaReasoning, Text: text})
}

// Content is the text so far.
func (s *Streamed) Content() string { return s.content.String() }

// Reasoning is the reasoning so far.
func (s *Streamed) Reasoning() string { return s.reasoning.String() }

// CompactArgs returns the compact form of a tool call's JSON arguments as a
// wire sent them whole, or the value as given when it cannot be compacted;
// absent arguments (empty or null) are "{}".
func CompactArgs(raw json.RawMessage) []byte {
	if len(bytes.TrimSpace(raw)) == 0 || string(raw) == "null" {
		return []byte("{}")
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return raw
	}
	return buf.Bytes()
}

// FinishReasons is a wire's table of finish (stop) reasons: it maps a raw
// value onto the normalized set (FinishStop, FinishLength, ...); the entry
// under FinishOther is the normalized reason of any value not listed.
type FinishReasons map[string]string

// FinishOther is the key of FinishReasons whose value stands for every raw
// finish reason the table does not list.
const FinishOther = "*"

// Map normalizes a raw finish reason: "" stays "", a listed value maps,
// any other gets the FinishOther entry.
func (f FinishReasons) Map(raw string) string {
	if raw == "" {
		return ""
	}
	if r, ok := f[raw]; ok {
		return r
	}
	return f[FinishOther]
}

// Response starts the Response of an assembler: the content, reasoning
// and model so far, and the finish reason as the wire said it (raw) and
// normalized (finish). The wire adds tool calls, usage and replay.
func (s *Streamed) Response(raw, finish string) *Response {
	return &Response{
		Content:         s.Content(),
		Reasoning:       s.Reasoning(),
		RawFinishReason: raw,
		FinishReason:    finish,
		Model:           s.model,
	}
}
