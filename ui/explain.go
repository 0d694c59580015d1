package ui

import (
	"encoding/json"
	"strings"

	"talaria/providers"
	"talaria/tools"
)

// explanationFirst is the line of a turn that ended abnormally: what
// happened and what to do first, the internal exit reason last (for bug
// reports), or the reason alone when there is no explanation.
func explanationFirst(reason, expl string) string {
	expl = strings.TrimSpace(expl)
	if expl == "" {
		return "turn ended: " + reason
	}
	return expl + " (" + reason + ")"
}

// toolOutputText is a tool result as the screen shows it: a guardrail
// block's JSON ({"error": "Blocked: …", "guardrail": {…}}) shows as its
// message; anything else as it is.
func toolOutputText(out string) string {
	t := strings.TrimSpace(out)
	if !strings.HasPrefix(t, `{"error"`) || !strings.Contains(t, `"guardrail"`) {
		return out
	}
	var v struct {
		Error     string          `json:"error"`
		Guardrail json.RawMessage `json:"guardrail"`
	}
	if json.Unmarshal([]byte(t), &v) != nil || v.Error == "" || len(v.Guardrail) == 0 {
		return out
	}
	return v.Error
}

// resumedState is the state a resumed tool result shows, as it showed
// live: the saved status, or for sessions saved before statuses were, what
// the result's text says (a cancellation receipt, a denial, an error).
func resumedState(msg providers.Message) toolState {
	switch msg.ToolStatus {
	case providers.ToolStatusOK:
		return toolDone
	case providers.ToolStatusFailed:
		return toolFailed
	case providers.ToolStatusDenied:
		return toolDenied
	case providers.ToolStatusCancelled:
		return toolCancelled
	}
	c := msg.Content
	switch {
	case tools.IsStopReceipt(c), strings.HasPrefix(c, "[Tool execution cancelled"), strings.HasPrefix(c, "[Tool execution interrupted"):
		return toolCancelled
	case strings.HasPrefix(c, "Error: The user denied this "), strings.HasPrefix(c, "The user denied this "):
		return toolDenied
	case strings.HasPrefix(c, "Error: "), strings.HasPrefix(toolOutputText(c), "Blocked: "):
		return toolFailed
	}
	return toolDone
}
