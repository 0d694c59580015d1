package ui

import (
	"encoding/json"
	"strings"
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
