package providers

import "strings"

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
