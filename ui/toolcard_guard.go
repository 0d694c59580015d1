package ui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"talaria/tools"
)

// guardLines are the guardrail's note on a call's card, in full and in the
// warning colour, so it is never hidden under "+N lines": the note the
// guardrail event attached (live), else the one at the end of the stored
// result (a resumed session).
func (c *toolCall) guardLines(rc *renderCtx, indent string) []string {
	note := c.guard
	if note == "" {
		if body := tools.StripAnnotation(c.output); len(body) < len(c.output) {
			note = strings.Trim(strings.TrimSpace(c.output[len(body):]), "[]")
		}
	}
	if note == "" || c.state < toolDone {
		return nil
	}
	w := max(1, rc.width-ansi.StringWidth(indent)-2)
	var out []string
	for i, l := range wrapKeepIndent(sanitize("guardrail "+note), w) {
		mark := "⚠ "
		if i > 0 {
			mark = "  "
		}
		out = append(out, indent+rc.st.Warning.Render(mark+l))
	}
	return out
}
