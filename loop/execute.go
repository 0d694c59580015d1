package loop

import (
	"encoding/json"
	"fmt"
	"strings"

	"talaria/providers"
)

// toolSpecs returns the tool list offered to the model (rebuilt per call:
// the registry may change between calls, e.g. when an MCP server reconnects).
func (a *Agent) toolSpecs() []providers.ToolSpec {
	all := a.opts.Tools.All()
	specs := make([]providers.ToolSpec, 0, len(all))
	for _, tl := range all {
		specs = append(specs, providers.ToolSpec{Name: tl.Name(), Description: tl.Description(), Parameters: tl.Schema()})
	}
	return specs
}

// cancelReceipt is the result of a tool call skipped by an interrupt.
func cancelReceipt(name string) string {
	return fmt.Sprintf("[Tool execution cancelled — %s was skipped due to user interrupt]", name)
}

// runTools executes a batch of tool calls in call order and appends one
// result per tool_call_id. Calls not started when the turn is interrupted
// get a cancellation receipt.
func (t *turn) runTools(calls []providers.ToolCall) {
	t.toolTurns++
	infos := make([]ToolCallInfo, len(calls))
	for i, c := range calls {
		infos[i] = ToolCallInfo{ID: c.ID, Name: c.Name}
	}
	t.emit(&ToolsPlanned{Segments: []PlannedSegment{{Mode: "sequential", Calls: infos}}})
	env := t.a.opts.ToolEnv
	for _, c := range calls {
		if t.stopped() {
			t.append(toolResult(c, cancelReceipt(c.Name)))
			t.emit(&ToolCompleted{ID: c.ID, Name: c.Name, Cancelled: true, Output: cancelReceipt(c.Name)})
			continue
		}
		t.emit(&ToolStarted{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
		start := t.a.opts.Now()
		res := t.a.opts.Tools.Call(t.ctx, &env, c.Name, c.Arguments)
		cancelled := t.stopped()
		t.append(toolResult(c, res.Output))
		t.emit(&ToolCompleted{ID: c.ID, Name: c.Name, OK: !res.IsError && !cancelled, Cancelled: cancelled, DurationMS: t.elapsedMS(start), Output: truncateOutput(res.Output, 4000)})
	}
}

func toolResult(c providers.ToolCall, out string) providers.Message {
	return providers.Message{Role: providers.RoleTool, Content: out, ToolCallID: c.ID, ToolName: c.Name}
}

func truncateOutput(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("… [%d more bytes]", len(s)-n)
}

// normalize makes an assistant message byte-stable for replay: content
// trimmed, tool-call arguments re-serialized with sorted keys (invalid JSON
// is kept as sent so the tool layer can report it).
func normalize(m providers.Message) providers.Message {
	m.Content = trimSpace(m.Content)
	if len(m.ToolCalls) == 0 {
		m.ToolCalls = nil
		return m
	}
	calls := make([]providers.ToolCall, len(m.ToolCalls))
	for i, c := range m.ToolCalls {
		var v any
		if err := json.Unmarshal([]byte(c.Arguments), &v); err == nil {
			if b, err := json.Marshal(v); err == nil {
				c.Arguments = string(b)
			}
		}
		calls[i] = c
	}
	m.ToolCalls = calls
	return m
}

// maxMalformedBatches is how many batches in a row may hold an invalid call
// (unknown tool, arguments that are not a JSON object) before the turn ends.
const maxMalformedBatches = 3

// checkMalformed counts batches with invalid calls; the third in a row ends
// the turn (the calls already got error results the model could read).
func (t *turn) checkMalformed(calls []providers.ToolCall) bool {
	var bad []string
	for _, c := range calls {
		if _, ok := t.a.opts.Tools.Get(c.Name); !ok {
			bad = append(bad, fmt.Sprintf("unknown tool %q", c.Name))
		} else if !isJSONObject(c.Arguments) {
			bad = append(bad, fmt.Sprintf("invalid JSON arguments for %s", c.Name))
		}
	}
	if len(bad) == 0 {
		t.malformed = 0
		return false
	}
	t.malformed++
	if t.malformed < maxMalformedBatches {
		return false
	}
	t.exit = ExitInvalidToolCalls
	t.final = fmt.Sprintf("Stopped: the model sent invalid tool calls %d times in a row (last: %s).", t.malformed, strings.Join(bad, "; "))
	return true
}

func isJSONObject(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" {
		return true
	}
	var obj map[string]json.RawMessage
	return json.Unmarshal([]byte(s), &obj) == nil && obj != nil
}
