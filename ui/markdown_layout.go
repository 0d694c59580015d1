package ui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// render returns text as styled lines at most w columns wide, without
// leading or trailing blank lines: block by block (render_blocks.go), as
// glamour renders the whole text, except that a table gets the width its
// cells need (up to w) instead of stretching across the screen, one blank
// line from the text around it.
func (md *markdown) render(text string, w int) []string {
	return md.renderCached(text, w, nil)
}

// renderCached is render reusing, and filling, the blocks in cache (nil:
// none).
func (md *markdown) renderCached(text string, w int, cache *blockCache) []string {
	w = max(8, w)
	if strings.TrimSpace(text) == "" {
		return nil
	}
	var j joiner
	md.blockRender(&j, prepareMarkdown(text), w, cache)
	return j.done()
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
