package ui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// composerHelp lists the composer's own keys and prefixes for /help.
func composerHelp() [][2]string {
	return [][2]string{
		{"ctrl+r", "search the input history"},
		{"ctrl+g", "edit the draft in $EDITOR"},
		{"ctrl+d", "quit (on an empty input)"},
		{"@path", "complete a file name and attach the file"},
		{"!command", "run a shell command; its output goes with your next message"},
	}
}

// helpRows lays out (name, description) rows in w columns: names in a
// column as wide as the widest (at most 26), descriptions wrapped beside
// it; below 48 columns each description goes under its name.
func helpRows(rows [][2]string, w int) string {
	w = max(20, w)
	nameW := 0
	for _, r := range rows {
		nameW = max(nameW, ansi.StringWidth(r[0]))
	}
	nameW = min(nameW, 26)
	var b strings.Builder
	if w < 48 || w-nameW-3 < 24 {
		for _, r := range rows {
			b.WriteString("\n  " + r[0])
			for _, l := range wrapWords(r[1], w-4) {
				b.WriteString("\n    " + l)
			}
		}
		return b.String()
	}
	descW := w - nameW - 3
	for _, r := range rows {
		name := r[0]
		if ansi.StringWidth(name) > nameW {
			b.WriteString("\n  " + name)
			name = ""
		}
		for i, l := range wrapWords(r[1], descW) {
			if i > 0 {
				name = ""
			}
			b.WriteString("\n  " + padRight(name, nameW) + " " + l)
		}
	}
	return b.String()
}

// wrapWords wraps s at word boundaries to lines of at most w columns.
func wrapWords(s string, w int) []string {
	return strings.Split(ansi.Wordwrap(s, max(8, w), ""), "\n")
}

// clearInterruptHint drops "interrupting…" once the turn has ended: it
// must not linger under the line that says the turn was interrupted.
func (m *Model) clearInterruptHint() {
	if strings.HasPrefix(m.ui.hint, "interrupting") {
		m.ui.hint = ""
		m.chromeDirty = true
	}
}
