package responses

import (
	"encoding/json"
	"strconv"
	"strings"

	"talaria/providers"
)

// finishReasons maps what this transport reports as the raw finish
// reason onto the normalized set: "completed" → stop (Stream makes it
// tool_calls when there are function calls), "max_output_tokens" and an
// "incomplete" without reason → length, "content_filter" → content_filter,
// "failed" and "cancelled" → error; unknown values count as stop and ""
// stays "".
var finishReasons = providers.FinishReasons{
	"completed":           providers.FinishStop,
	"stop":                providers.FinishStop,
	"max_output_tokens":   providers.FinishLength,
	"incomplete":          providers.FinishLength,
	"length":              providers.FinishLength,
	"content_filter":      providers.FinishContentFilter,
	"failed":              providers.FinishError,
	"cancelled":           providers.FinishError,
	providers.FinishOther: providers.FinishStop,
}

// assembler builds a Response from stream events (or from the output items
// of a complete response) and reports deltas as they arrive.
type assembler struct {
	providers.Streamed // content and reasoning, reported as they arrive
	calls              []*callAcc
	// byItem and byOutput hold the latest call with an item id and with
	// an output index, so a reply with many calls assembles in linear time.
	byItem   map[string]*callAcc
	byOutput map[int]*callAcc
	items    []json.RawMessage // reasoning items, for the replay
	sawText  bool              // output text arrived as deltas
	refusal  bool
	// reasoning part being streamed, to separate summary parts
	reasonItem  string
	reasonIndex int
	reasonDelta bool // reasoning arrived as deltas
	status      string
	incomplete  string // incomplete_details.reason
	usage       *wireUsage
	sawEvent    bool
	terminal    bool // response.completed / incomplete / failed seen
}

// callAcc is one function call being assembled.
type callAcc struct {
	itemID, callID, name string
	outputIndex          int
	args                 strings.Builder
	done                 bool
}

func newAssembler(onDelta func(providers.Delta)) *assembler {
	return &assembler{Streamed: providers.Streamed{OnDelta: onDelta}, byItem: map[string]*callAcc{}, byOutput: map[int]*callAcc{}}
}

// add folds one decoded event in; unknown types are ignored. Error events
// and response.failed are handled by the caller.
func (a *assembler) add(ev *event) {
	a.sawEvent = true
	switch ev.Type {
	case "response.created", "response.in_progress", "response.queued":
		a.setResponse(ev.Response)
	case "response.output_item.added":
		a.itemAdded(ev)
	case "response.output_item.done":
		a.itemDone(ev.Item, ev.OutputIndex)
	case "response.output_text.delta":
		a.sawText = true
		a.AddText(ev.Delta)
	case "response.refusal.delta":
		a.sawText, a.refusal = true, true
		a.AddText(ev.Delta)
	case "response.function_call_arguments.delta":
		if c := a.call(ev.ItemID, ev.OutputIndex); c != nil {
			c.args.WriteString(ev.Delta)
		}
	case "response.function_call_arguments.done":
		if c := a.call(ev.ItemID, ev.OutputIndex); c != nil {
			if ev.Arguments != "" {
				c.args.Reset()
				c.args.WriteString(ev.Arguments)
			}
			c.done = true
		}
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		a.addReasoning(ev.ItemID, ev.SummaryIndex, ev.Delta)
	case "response.completed", "response.incomplete":
		a.terminal = true
		a.setResponse(ev.Response)
		a.status = strings.TrimPrefix(ev.Type, "response.") // the event type is authoritative
		a.fillFromOutput(ev.Response)
	}
}

func (a *assembler) setResponse(r *wireResponse) {
	if r == nil {
		return
	}
	a.SetModel(r.Model)
	if r.Status != "" {
		a.status = r.Status
	}
	if r.IncompleteDetails != nil && r.IncompleteDetails.Reason != "" {
		a.incomplete = r.IncompleteDetails.Reason
	}
	if r.Usage != nil {
		a.usage = r.Usage
	}
}

func (a *assembler) itemAdded(ev *event) {
	var it wireItem
	if json.Unmarshal(ev.Item, &it) != nil || it.Type != "function_call" {
		return
	}
	c := a.newCall(it.ID, it.CallID, it.Name, ev.OutputIndex)
	c.args.WriteString(it.Arguments)
}

func (a *assembler) newCall(itemID, callID, name string, outputIndex int) *callAcc {
	c := &callAcc{itemID: itemID, callID: callID, name: name, outputIndex: outputIndex}
	a.calls = append(a.calls, c)
	if itemID != "" {
		a.byItem[itemID] = c
	}
	a.byOutput[outputIndex] = c
	a.OnDelta.Emit(providers.Delta{Kind: providers.DeltaToolCall, ToolIndex: len(a.calls) - 1, ToolName: name})
	return c
}

// itemDone takes a finished output item: it completes a function call (or
// adds one a server never announced), keeps a reasoning item for the
// replay, and takes text or reasoning that did not arrive as deltas.
func (a *assembler) itemDone(raw json.RawMessage, outputIndex int) {
	var it wireItem
	if json.Unmarshal(raw, &it) != nil {
		return
	}
	switch it.Type {
	case "function_call":
		c := a.call(it.ID, outputIndex)
		if c == nil || (it.CallID != "" && c.callID != "" && c.callID != it.CallID) {
			c = a.newCall(it.ID, it.CallID, it.Name, outputIndex)
		}
		if c.callID == "" {
			c.callID = it.CallID
		}
		if c.name == "" {
			c.name = it.Name
		}
		if it.Arguments != "" {
			c.args.Reset()
			c.args.WriteString(it.Arguments)
		}
		c.done = it.Status != "incomplete"
	case "reasoning":
		a.items = append(a.items, raw)
		if !a.reasonDelta {
			for i, s := range it.Summary {
				a.addReasoning(it.ID, i, s.Text)
			}
		}
		a.reasonDelta = false
	case "message":
		if a.sawText {
			return
		}
		for _, p := range it.Content {
			switch p.Type {
			case "output_text":
				a.AddText(p.Text)
			case "refusal":
				a.refusal = true
				a.AddText(p.Refusal)
			}
		}
	}
}

// fillFromOutput takes the output items of a final response object when
// the stream itself carried none (a server that sends only the final
// event).
func (a *assembler) fillFromOutput(r *wireResponse) {
	if r == nil || len(r.Output) == 0 || a.sawText || len(a.calls) > 0 || len(a.items) > 0 || a.Reasoning() != "" {
		return
	}
	for i, raw := range r.Output {
		a.itemDone(raw, i)
	}
}

// call finds a function call by item id, else by output index (servers
// that number items differently in their events).
func (a *assembler) call(itemID string, outputIndex int) *callAcc {
	if c, ok := a.byItem[itemID]; ok && itemID != "" {
		return c
	}
	return a.byOutput[outputIndex]
}

// addReasoning appends reasoning text; a new summary part (another item or
// summary index) starts after a blank line.
func (a *assembler) addReasoning(itemID string, index int, s string) {
	if s == "" {
		return
	}
	a.reasonDelta = true
	if a.Reasoning() != "" && (itemID != a.reasonItem || index != a.reasonIndex) {
		a.AddReasoning("\n\n")
	}
	a.reasonItem, a.reasonIndex = itemID, index
	a.AddReasoning(s)
}

// response returns what has been assembled so far. A function call whose
// arguments never finished keeps them for display but is marked incomplete
// in Extra, and the finish reason is then length, so it never runs; a
// finished call with no arguments gets "{}". Usage.InputTokens excludes the
// cached prompt (input_tokens - cached_tokens), as Anthropic's does.
func (a *assembler) response() *providers.Response {
	var raw string
	switch a.status {
	case "incomplete":
		raw = a.incomplete
		if raw == "" {
			raw = a.status
		}
	case "completed":
		raw = a.status
	}
	r := a.Response(raw, finishReasons.Map(raw))
	incomplete := false
	for i, c := range a.calls {
		tc := providers.ToolCall{ID: c.callID, Name: c.name, Arguments: c.args.String()}
		if tc.ID == "" {
			tc.ID = c.itemID
		}
		if tc.ID == "" {
			tc.ID = "call_" + strconv.Itoa(i)
		}
		if !c.done {
			tc.Extra = json.RawMessage(providers.IncompleteExtra)
			incomplete = true
		} else if strings.TrimSpace(tc.Arguments) == "" {
			tc.Arguments = "{}"
		}
		r.ToolCalls = append(r.ToolCalls, tc)
	}
	switch {
	case r.FinishReason == "":
	case incomplete:
		r.FinishReason = providers.FinishLength
	case r.FinishReason == providers.FinishStop && len(r.ToolCalls) > 0:
		r.FinishReason = providers.FinishToolCalls
	case r.FinishReason == providers.FinishStop && a.refusal:
		r.FinishReason = providers.FinishContentFilter
	}
	if u := a.usage; u != nil {
		r.Usage = providers.Usage{
			InputTokens:     max(u.InputTokens-u.cached(), 0),
			OutputTokens:    u.OutputTokens,
			CacheReadTokens: u.cached(),
		}
		if u.OutputTokensDetails != nil {
			r.Usage.ReasoningTokens = u.OutputTokensDetails.ReasoningTokens
		}
	}
	if len(a.items) > 0 {
		r.ReasoningReplay, _ = json.Marshal(replay{Format: ReplayFormat, Items: a.items})
	}
	return r
}
