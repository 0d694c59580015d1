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

// FinishReasons is a wire's table of finish (stop) reasons: Known maps a
// raw value onto the normalized set (FinishStop, FinishLength, ...), and
// Unknown is the normalized reason of any other non-empty value. With
// Fold, a raw value is looked up lowercased (Known's keys are lowercase).
type FinishReasons struct {
	Known   map[string]string
	Unknown string
	Fold    bool
}

// Map normalizes a raw finish reason: "" stays "", a known value maps,
// any other is Unknown.
func (f *FinishReasons) Map(raw string) string {
	if raw == "" {
		return ""
	}
	if f.Fold {
		raw = strings.ToLower(raw)
	}
	if r, ok := f.Known[raw]; ok {
		return r
	}
	return f.Unknown
}

// Response starts the Response of an assembler: the content and reasoning
// so far, model, and rawFinish as the wire said it with its reason
// normalized by reasons. The wire adds tool calls, usage and replay.
func (s *Streamed) Response(model, rawFinish string, reasons *FinishReasons) *Response {
	return &Response{
		Content:         s.Content(),
		Reasoning:       s.Reasoning(),
		RawFinishReason: rawFinish,
		FinishReason:    reasons.Map(rawFinish),
		Model:           model,
	}
}
