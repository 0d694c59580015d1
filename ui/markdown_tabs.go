package ui

import (
	"strings"

	"github.com/mattn/go-runewidth"
)

// codeTabWidth is the tab stop inside fenced code blocks: 4 columns, what
// most editors and GitHub's own code view default to, and narrow enough
// that Go code keeps its shape at 80 columns.
const codeTabWidth = 4

// expandFencedTabs replaces each tab inside a fenced code block (``` or
// ~~~) with spaces up to the next tab stop. The renderer drops tabs, so
// without this Go code renders flat; text outside fences is untouched (a
// tab there is markdown syntax).
func expandFencedTabs(text string) string {
	if !strings.Contains(text, "\t") {
		return text
	}
	lines := strings.SplitAfter(text, "\n")
	fence := ""
	for i, l := range lines {
		trimmed := strings.TrimLeft(l, " ")
		if fence == "" {
			if f := fenceOpener(trimmed); f != "" {
				fence = f
			}
			continue
		}
		if closesFence(trimmed, fence) {
			fence = ""
			continue
		}
		if strings.Contains(l, "\t") {
			lines[i] = expandTabs(l, codeTabWidth)
		}
	}
	return strings.Join(lines, "")
}

// fenceOpener returns the fence (three or more ` or ~) a line opens, or "".
func fenceOpener(l string) string {
	for _, c := range []string{"`", "~"} {
		n := len(l) - len(strings.TrimLeft(l, c))
		if n >= 3 {
			return strings.Repeat(c, n)
		}
	}
	return ""
}

// closesFence reports whether a line (its leading spaces trimmed) closes
// the open fence: the fence's character, at least as many, and nothing
// after them.
func closesFence(trimmed, fence string) bool {
	return strings.HasPrefix(trimmed, fence) && strings.TrimSpace(strings.TrimLeft(trimmed, fence[:1])) == ""
}

// expandTabs replaces tabs with spaces to the next multiple of w columns,
// counting wide runes as two.
func expandTabs(l string, w int) string {
	var b strings.Builder
	col := 0
	for _, r := range l {
		switch r {
		case '\t':
			n := w - col%w
			b.WriteString(strings.Repeat(" ", n))
			col += n
		case '\n':
			b.WriteRune(r)
			col = 0
		default:
			b.WriteRune(r)
			col += runewidth.RuneWidth(r)
		}
	}
	return b.String()
}
