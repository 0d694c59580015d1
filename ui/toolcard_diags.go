package ui

import (
	"fmt"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"talaria/tools/lsp"
)

// cardDiagnostics is how many of an edit's diagnostics its card lists;
// the rest are in the result the pager (ctrl+t) shows.
const cardDiagnostics = 5

// diagLines renders under an edit's card the language servers' verdict:
// a count line, then the first diagnostics (errors first, as the loop
// sorted them), ones the file already had marked as such.
func (c *toolCall) diagLines(rc *renderCtx, indent string) []string {
	if len(c.diags) == 0 {
		return nil
	}
	errs, fresh := 0, 0
	for _, d := range c.diags {
		if d.Severity == lsp.SeverityError {
			errs++
		}
		if !d.Existing {
			fresh++
		}
	}
	w := max(1, rc.width-ansi.StringWidth(indent)-2)
	bar := rc.st.ToolRule.Render("│ ")
	head := fmt.Sprintf("%d diagnostic%s", len(c.diags), plural(len(c.diags)))
	if errs > 0 {
		head += fmt.Sprintf(", %d error%s", errs, plural(errs))
	}
	if fresh < len(c.diags) {
		head += fmt.Sprintf(" (%d new)", fresh)
	}
	hs := rc.st.Warning
	if errs > 0 {
		hs = rc.st.Error
	}
	out := []string{indent + bar + hs.Render(ansi.Truncate(head, w, "…"))}
	for i, d := range c.diags {
		if i == cardDiagnostics {
			more := fmt.Sprintf("… +%d more · ctrl+t full result", len(c.diags)-i)
			out = append(out, indent+bar+rc.st.Faint.Render(ansi.Truncate(more, w, "…")))
			break
		}
		out = append(out, indent+bar+diagStyle(rc, d).Render(ansi.Truncate(oneLine(d.String()), w, "…")))
	}
	return out
}

// diagStyle colours a diagnostic by severity; old ones are faint.
func diagStyle(rc *renderCtx, d lsp.Diagnostic) lipgloss.Style {
	switch {
	case d.Existing:
		return rc.st.Faint
	case d.Severity == lsp.SeverityError:
		return rc.st.Error
	default:
		return rc.st.Warning
	}
}
