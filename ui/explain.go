package ui

import (
	"encoding/json"
	"fmt"
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

// markAwaiting marks the queued call whose approval r asks for (the first
// one with its tool and arguments), and no other: its lane then says
// "awaiting approval" instead of "queued".
func (m *Model) markAwaiting(r *dialogRequest) {
	var found bool
	for _, ref := range m.live.calls {
		c := ref.call
		want := r != nil && r.kind == dialogApproval && !found && c.state == toolPending &&
			c.name == r.approval.Tool && c.args == r.approval.Args
		if c.awaiting != want {
			c.awaiting = want
			ref.batch.ver++
			m.trDirty = true
		}
		found = found || want
	}
}

// targetPreview names what a call acts on where its arguments hold no
// plain target: the files a V4A patch touches, the size of a todo list.
func targetPreview(name string, args map[string]any) (string, bool) {
	switch name {
	case "patch":
		if p, ok := args["path"].(string); ok && p != "" {
			return p, true
		}
		body, _ := args["patch"].(string)
		var files []string
		for _, l := range strings.Split(body, "\n") {
			for _, op := range []string{"*** Update File: ", "*** Add File: ", "*** Delete File: "} {
				if f, ok := strings.CutPrefix(strings.TrimSpace(l), op); ok && f != "" {
					files = append(files, f)
				}
			}
		}
		if len(files) > 0 {
			return strings.Join(files, ", "), true
		}
	case "todo":
		items, ok := args["todos"].([]any)
		if !ok {
			return "read the list", true
		}
		s := fmt.Sprintf("%d item%s", len(items), plural(len(items)))
		if merge, _ := args["merge"].(bool); merge {
			s += " · merge"
		}
		return s, true
	}
	return "", false
}
