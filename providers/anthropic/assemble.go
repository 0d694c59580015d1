package anthropic

import (
	"encoding/json"
	"strings"

	"talaria/providers"
)

// finishReasons maps a wire stop_reason onto the normalized set (see the
// package documentation); pause_turn becomes FinishPauseTurn, unknown values
// count as stop, and "" stays "".
var finishReasons = providers.FinishReasons{
	"end_turn":                      providers.FinishStop,
	"stop_sequence":                 providers.FinishStop,
	"max_tokens":                    providers.FinishLength,
	"model_context_window_exceeded": providers.FinishLength,
	"tool_use":                      providers.FinishToolCalls,
	"refusal":                       providers.FinishContentFilter,
	"pause_turn":                    FinishPauseTurn,
	providers.FinishOther:           providers.FinishStop,
}

// assembler builds a Response from stream events (or from the blocks of a
// complete message) and reports deltas as they arrive.
type assembler struct {
	providers.Streamed // content and reasoning, reported as they arrive
	blocks             []*blockAcc
	// byIndex holds the latest block with each wire index, so a reply
	// with many blocks assembles in linear time.
	byIndex  map[int]*blockAcc
	ncalls   int
	stop     string // raw stop_reason
	usage    wireUsage
	started  bool // message_start seen
	finished bool // message_stop seen
}

// blockAcc is one content block being assembled.
type blockAcc struct {
	index     int
	kind      string
	id, name  string
	args      []byte // tool_use: concatenated input_json_delta fragments
	input     json.RawMessage
	thinking  strings.Builder
	signature string
	data      string // redacted_thinking
	stopped   bool
}

func newAssembler(onDelta func(providers.Delta)) *assembler {
	return &assembler{Streamed: providers.Streamed{OnDelta: onDelta}, byIndex: map[int]*blockAcc{}}
}

// add folds one decoded event in. Unknown event and block types are
// ignored.
func (a *assembler) add(ev *event) {
	switch ev.Type {
	case "message_start":
		a.started = true
		if m := ev.Message; m != nil {
			a.SetModel(m.Model)
			a.usage.merge(m.Usage)
			if m.StopReason != "" {
				a.stop = m.StopReason
			}
		}
	case "content_block_start":
		if ev.ContentBlock != nil {
			a.startBlock(ev.Index, ev.ContentBlock)
		}
	case "content_block_delta":
		if b := a.block(ev.Index); b != nil {
			a.addDelta(b, &ev.Delta)
		}
	case "content_block_stop":
		if b := a.block(ev.Index); b != nil {
			b.stopped = true
		}
	case "message_delta":
		if ev.Delta.StopReason != "" {
			a.stop = ev.Delta.StopReason
		}
		a.usage.merge(ev.Usage)
	case "message_stop":
		a.finished = true
	}
}

func (a *assembler) startBlock(index int, wb *wireBlock) {
	b := &blockAcc{index: index, kind: wb.Type}
	a.blocks = append(a.blocks, b)
	a.byIndex[index] = b
	switch wb.Type {
	case "text":
		a.AddText(wb.Text)
	case "thinking":
		a.addThinking(b, wb.Thinking)
		b.signature = wb.Signature
	case "redacted_thinking":
		b.data = wb.Data
	case "tool_use":
		b.id, b.name, b.input = wb.ID, wb.Name, wb.Input
		a.OnDelta.Emit(providers.Delta{Kind: providers.DeltaToolCall, ToolIndex: a.ncalls, ToolName: wb.Name})
		a.ncalls++
	}
}

// block finds the latest block started with a wire index, or nil.
func (a *assembler) block(index int) *blockAcc {
	return a.byIndex[index]
}

func (a *assembler) addDelta(b *blockAcc, d *wireDelta) {
	switch d.Type {
	case "text_delta":
		a.AddText(d.Text)
	case "input_json_delta":
		b.args = append(b.args, d.PartialJSON...)
	case "thinking_delta":
		a.addThinking(b, d.Thinking)
	case "signature_delta":
		b.signature += d.Signature
	}
}

func (a *assembler) addThinking(b *blockAcc, s string) {
	if s == "" {
		return
	}
	b.thinking.WriteString(s)
	a.AddReasoning(s)
}

// addComplete folds in the blocks of a complete (non-streamed) message.
func (a *assembler) addComplete(m *wireMessage) {
	a.add(&event{Type: "message_start", Message: m})
	for i := range m.Content {
		wb := &m.Content[i]
		a.startBlock(i, wb)
		b := a.blocks[len(a.blocks)-1]
		if wb.Type == "tool_use" && len(wb.Input) > 0 {
			b.args = append(b.args, wb.Input...)
		}
		b.stopped = true
	}
	a.finished = true
}

// response returns what has been assembled so far. A tool call whose block
// never got content_block_stop (a max_tokens cut inside its JSON) keeps its
// partial arguments for display but is marked incomplete in Extra, and the
// finish reason is then length whatever the wire said, so the call never
// runs. A finished call with no input is "{}". Usage.InputTokens excludes the
// cached prompt (input_tokens as Anthropic reports it).
func (a *assembler) response() *providers.Response {
	r := a.Response(a.stop, finishReasons.Map(a.stop))
	r.Usage = providers.Usage{
		InputTokens:      deref(a.usage.InputTokens),
		OutputTokens:     deref(a.usage.OutputTokens),
		CacheReadTokens:  deref(a.usage.CacheReadInputTokens),
		CacheWriteTokens: deref(a.usage.CacheCreationInputTokens),
	}
	if d := a.usage.OutputTokensDetails; d != nil {
		r.Usage.ReasoningTokens = deref(d.ThinkingTokens)
	}
	var rp replay
	thinking := false
	for _, b := range a.blocks {
		switch b.kind {
		case "text":
			rp.Blocks = append(rp.Blocks, replayBlock{Type: "text"})
		case "tool_use":
			r.ToolCalls = append(r.ToolCalls, b.toolCall())
			rp.Blocks = append(rp.Blocks, replayBlock{Type: "tool_use", ID: b.id})
			if !b.stopped {
				r.FinishReason = providers.FinishLength
			}
		case "thinking":
			if b.signature != "" {
				text := b.thinking.String()
				rp.Blocks = append(rp.Blocks, replayBlock{Type: "thinking", Thinking: &text, Signature: b.signature})
				thinking = true
			}
		case "redacted_thinking":
			if b.data != "" {
				rp.Blocks = append(rp.Blocks, replayBlock{Type: "redacted_thinking", Data: b.data})
				thinking = true
			}
		}
	}
	if thinking {
		rp.Format = ReplayFormat
		r.ReasoningReplay, _ = json.Marshal(rp)
	}
	return r
}

func (b *blockAcc) toolCall() providers.ToolCall {
	tc := providers.ToolCall{ID: b.id, Name: b.name, Arguments: string(b.args)}
	if len(b.args) == 0 && len(b.input) > 0 && string(b.input) != "{}" {
		tc.Arguments = string(b.input) // a server that sent the input whole
	}
	if !b.stopped {
		tc.Extra = json.RawMessage(providers.IncompleteExtra)
		return tc
	}
	if strings.TrimSpace(tc.Arguments) == "" {
		tc.Arguments = "{}"
	}
	return tc
}
