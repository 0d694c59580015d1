package ui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// render returns text as styled lines at most w columns wide, without
// leading or trailing blank lines. A table gets the width its cells
// need (up to w) instead of stretching across the screen; the rest
// wraps at w.
func (md *markdown) render(text string, w int) []string {
	segs := splitTables(text, max(8, w))
	if len(segs) == 1 {
		return md.renderAt(text, w)
	}
	var out []string
	for _, s := range segs {
		lines := md.renderAt(s.text, s.width)
		if len(lines) == 0 {
			continue
		}
		if len(out) > 0 {
			out = append(out, "")
		}
		out = append(out, lines...)
	}
	return out
}

// mdSegment is a part of a markdown text and the width it renders at.
type mdSegment struct {
	text  string
	width int
}

// splitTables cuts text into its tables (outside code fences) and the
// text around them; a table's width is what its widest cells need.
func splitTables(text string, w int) []mdSegment {
	if !strings.Contains(text, "|") {
		return []mdSegment{{text, w}}
	}
	lines := strings.SplitAfter(text, "\n")
	var segs []mdSegment
	var cur strings.Builder
	flush := func(width int) {
		if cur.Len() > 0 {
			segs = append(segs, mdSegment{cur.String(), width})
			cur.Reset()
		}
	}
	fence := ""
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		trimmed := strings.TrimLeft(l, " ")
		switch {
		case fence != "":
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
		case fenceOpener(trimmed) != "":
			fence = fenceOpener(trimmed)[:3]
		case isTableRow(l) && i+1 < len(lines) && isDelimiterRow(lines[i+1]):
			flush(w)
			j := i
			for j < len(lines) && isTableRow(lines[j]) {
				cur.WriteString(lines[j])
				j++
			}
			flush(min(w, tableWidth(lines[i:j])))
			i = j - 1
			continue
		}
		cur.WriteString(l)
	}
	flush(w)
	return segs
}

// isTableRow reports a line that reads as a pipe-table row.
func isTableRow(l string) bool {
	t := strings.TrimSpace(l)
	return strings.HasPrefix(t, "|") && strings.Count(t, "|") >= 2
}

// isDelimiterRow reports a table's |---|:--:| line.
func isDelimiterRow(l string) bool {
	t := strings.TrimSpace(l)
	if !isTableRow(t) {
		return false
	}
	return strings.Trim(t, "|-: ") == "" && strings.Contains(t, "-")
}

// tableWidth is the width a table's rows need: the widest cell of each
// column plus the padding and rules the renderer adds.
func tableWidth(rows []string) int {
	var cols []int
	for _, r := range rows {
		if isDelimiterRow(r) {
			continue
		}
		cells := strings.Split(strings.Trim(strings.TrimSpace(r), "|"), "|")
		for i, c := range cells {
			if i >= len(cols) {
				cols = append(cols, 0)
			}
			cols[i] = max(cols[i], ansi.StringWidth(strings.TrimSpace(c)))
		}
	}
	total := 0
	for _, c := range cols {
		total += c + 3
	}
	return max(8, total+1)
}

// prepareMarkdown is the text handed to the renderer: tabs in code
// expanded, and a rule between code blocks that follow each other, which
// would otherwise read as one.
func prepareMarkdown(text string) string {
	return separateCodeBlocks(expandFencedTabs(text))
}

// separateCodeBlocks puts a horizontal rule between a closing fence and a
// fence that opens after nothing but blank lines.
func separateCodeBlocks(text string) string {
	if strings.Count(text, "```")+strings.Count(text, "~~~") < 4 {
		return text
	}
	lines := strings.SplitAfter(text, "\n")
	var b strings.Builder
	fence, justClosed := "", false
	for _, l := range lines {
		trimmed := strings.TrimLeft(l, " ")
		if fence != "" {
			if closesFence(trimmed, fence) {
				fence, justClosed = "", true
			}
			b.WriteString(l)
			continue
		}
		if f := fenceOpener(trimmed); f != "" {
			if justClosed {
				b.WriteString("\n---\n\n")
			}
			fence, justClosed = f, false
			b.WriteString(l)
			continue
		}
		if strings.TrimSpace(l) != "" {
			justClosed = false
		}
		b.WriteString(l)
	}
	return b.String()
}
