package bedrock

import (
	"encoding/json"
	"strings"

	"talaria/providers"
)

// finishReasons maps a Converse stopReason onto the normalized set:
// end_turn and stop_sequence → stop, tool_use → tool_calls, max_tokens and
// model_context_window_exceeded → length, guardrail_intervened and
// content_filtered → content_filter, malformed_model_output and
// malformed_tool_use → error; unknown values count as stop. "" stays "".
var finishReasons = providers.FinishReasons{
	"end_turn":                      providers.FinishStop,
	"stop_sequence":                 providers.FinishStop,
	"tool_use":                      providers.FinishToolCalls,
	"max_tokens":                    providers.FinishLength,
	"model_context_window_exceeded": providers.FinishLength,
	"guardrail_intervened":          providers.FinishContentFilter,
	"content_filtered":              providers.FinishContentFilter,
	"malformed_model_output":        providers.FinishError,
	"malformed_tool_use":            providers.FinishError,
	providers.FinishOther:           providers.FinishStop,
}

// assembler builds a Response from Converse content blocks, either whole
// (converse) or as converse-stream events, and reports deltas.
type assembler struct {
	providers.Streamed // content and reasoning, reported as they arrive
	// replay holds the reasoning blocks to send back, in order.
	replay []*reasoningContent
	calls  []*callAcc
	// blocks maps a stream contentBlockIndex to what it is building.
	blocks     map[int]*blockAcc
	stopReason string
	usage      *wireUsage
	// sawEvent and sawStop: any event, and messageStop, went by.
	sawEvent bool
	sawStop  bool
}

// callAcc is one tool call being assembled.
type callAcc struct {
	id, name string
	args     strings.Builder
}

// blockAcc is one streamed content block: a tool call, or a reasoning
// block whose text and signature arrive in separate deltas.
type blockAcc struct {
	call      *callAcc
	reasoning *reasoningContent
}

func newAssembler(onDelta func(providers.Delta)) *assembler {
	return &assembler{Streamed: providers.Streamed{OnDelta: onDelta}, blocks: map[int]*blockAcc{}}
}

// addCall appends a tool call and announces it.
func (a *assembler) addCall(id, name string) *callAcc {
	c := &callAcc{id: id, name: name}
	a.calls = append(a.calls, c)
	a.OnDelta.Emit(providers.Delta{Kind: providers.DeltaToolCall, ToolIndex: len(a.calls) - 1, ToolName: name})
	return c
}

// addMessage folds in a whole output message (converse). Deltas go out in
// the order reasoning, text, tool calls: one reasoning delta and one text
// delta for the whole answer.
func (a *assembler) addMessage(m *wireMessage) {
	var text, reasoning strings.Builder
	for _, b := range m.Content {
		switch {
		case b.Text != nil:
			text.WriteString(*b.Text)
		case b.ReasoningContent != nil:
			rc := *b.ReasoningContent
			if rc.ReasoningText != nil {
				reasoning.WriteString(rc.ReasoningText.Text)
			}
			a.replay = append(a.replay, &rc)
		}
	}
	a.AddReasoning(reasoning.String())
	a.AddText(text.String())
	for _, b := range m.Content {
		if b.ToolUse != nil {
			c := a.addCall(b.ToolUse.ToolUseID, b.ToolUse.Name)
			c.args.Write(providers.CompactArgs(b.ToolUse.Input))
		}
	}
}

// blockStart handles contentBlockStart: only tool calls announce a block.
func (a *assembler) blockStart(ev *blockStartEvent) {
	if tu := ev.Start.ToolUse; tu != nil {
		a.blocks[ev.ContentBlockIndex] = &blockAcc{call: a.addCall(tu.ToolUseID, tu.Name)}
	}
}

// blockDelta handles contentBlockDelta: text, tool input fragments, and
// reasoning text, signature or redacted content.
func (a *assembler) blockDelta(ev *blockDeltaEvent) {
	d := &ev.Delta
	switch {
	case d.Text != nil:
		a.AddText(*d.Text)
	case d.ToolUse != nil:
		b := a.blocks[ev.ContentBlockIndex]
		if b == nil || b.call == nil {
			// Input without a contentBlockStart: keep it on a nameless call
			// rather than lose it.
			b = &blockAcc{call: &callAcc{}}
			a.calls = append(a.calls, b.call)
			a.blocks[ev.ContentBlockIndex] = b
		}
		b.call.args.WriteString(d.ToolUse.Input)
	case d.ReasoningContent != nil:
		rd := d.ReasoningContent
		b := a.blocks[ev.ContentBlockIndex]
		if b == nil || b.reasoning == nil {
			b = &blockAcc{reasoning: &reasoningContent{}}
			a.blocks[ev.ContentBlockIndex] = b
			a.replay = append(a.replay, b.reasoning)
		}
		rc := b.reasoning
		if rd.RedactedContent != "" {
			rc.RedactedContent += rd.RedactedContent
		}
		if rd.Text != "" || rd.Signature != "" {
			if rc.ReasoningText == nil {
				rc.ReasoningText = &reasoningText{}
			}
			rc.ReasoningText.Text += rd.Text
			rc.ReasoningText.Signature += rd.Signature
		}
		a.AddReasoning(rd.Text)
	}
}

// response returns what has been assembled so far.
func (a *assembler) response(model string) *providers.Response {
	a.SetModel(model)
	r := a.Response(a.stopReason, finishReasons.Map(a.stopReason))
	for _, c := range a.calls {
		args := c.args.String()
		if strings.TrimSpace(args) == "" {
			args = "{}"
		}
		r.ToolCalls = append(r.ToolCalls, providers.ToolCall{ID: c.id, Name: c.name, Arguments: args})
	}
	if r.FinishReason == providers.FinishStop && len(r.ToolCalls) > 0 {
		r.FinishReason = providers.FinishToolCalls
	}
	if len(a.replay) > 0 {
		if b, err := json.Marshal(map[string][]*reasoningContent{replayKey: a.replay}); err == nil {
			r.ReasoningReplay = b
		}
	}
	if u := a.usage; u != nil {
		// inputTokens excludes cache reads and writes, as Anthropic's does.
		r.Usage = providers.Usage{
			InputTokens:      u.InputTokens,
			OutputTokens:     u.OutputTokens,
			CacheReadTokens:  u.CacheReadInputTokens,
			CacheWriteTokens: u.CacheWriteInputTokens,
		}
	}
	return r
}

// normalize builds a Response from a complete Converse answer, without
// reporting deltas.
func normalize(cr *converseResponse) *providers.Response {
	a := newAssembler(nil)
	if cr.Output.Message != nil {
		a.addMessage(cr.Output.Message)
	}
	a.stopReason = cr.StopReason
	a.usage = cr.Usage
	return a.response("")
}
