package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// textPos is a place in the transcript's rendered text: an item, a line
// of its rendering and a column. It stays put when the window scrolls.
type textPos struct{ entry, line, col int }

func (a textPos) before(b textPos) bool {
	if a.entry != b.entry {
		return a.entry < b.entry
	}
	if a.line != b.line {
		return a.line < b.line
	}
	return a.col < b.col
}

// selection is a mouse drag over the transcript.
type selection struct {
	dragging bool // the button is down
	shown    bool // there is a range to draw
	from, to textPos
}

// ordered returns the range's ends in reading order.
func (s selection) ordered() (textPos, textPos) {
	if s.to.before(s.from) {
		return s.to, s.from
	}
	return s.from, s.to
}

// rowRef says which item line a screen row of the transcript shows;
// entry is -1 for the blank rows under a short transcript.
type rowRef struct{ entry, line int }

// handleMouseClick starts a selection where the left button went down
// in the transcript.
func (m *Model) handleMouseClick(msg tea.MouseClickMsg) tea.Cmd {
	if m.sel.shown {
		m.sel.shown = false
		m.trDirty = true
	}
	if msg.Button != tea.MouseLeft || msg.Y < 0 || msg.Y >= m.tr.height {
		return nil
	}
	p, ok := m.posAt(msg.X, msg.Y)
	if !ok {
		return nil
	}
	m.sel = selection{dragging: true, from: p, to: p}
	return nil
}

// handleMouseMotion extends the selection while the button is held; past
// the transcript's top or bottom edge it scrolls one line a move.
func (m *Model) handleMouseMotion(msg tea.MouseMotionMsg) tea.Cmd {
	if !m.sel.dragging {
		return nil
	}
	y := msg.Y
	switch {
	case y < 0:
		m.tr.scrollUp(1, m.renderCtx())
		m.tr.refresh(m.renderCtx())
		y = 0
	case y >= m.tr.height:
		m.tr.scrollDown(1, m.renderCtx())
		m.tr.refresh(m.renderCtx())
		y = m.tr.height - 1
	}
	if p, ok := m.posAt(msg.X, y); ok {
		m.sel.to, m.sel.shown = p, m.sel.from != p
	}
	m.trDirty, m.chromeDirty = true, true
	return nil
}

// handleMouseRelease ends a drag and copies what it selected.
func (m *Model) handleMouseRelease(msg tea.MouseReleaseMsg) tea.Cmd {
	if !m.sel.dragging {
		return nil
	}
	m.sel.dragging = false
	if !m.sel.shown {
		return nil
	}
	text := m.selectedText()
	if strings.TrimSpace(text) == "" {
		m.sel.shown = false
		m.trDirty = true
		return nil
	}
	n := strings.Count(text, "\n") + 1
	return m.copyText(text, fmt.Sprintf("%d line%s", n, plural(n)))
}

// clearSelection drops the highlight (a key was pressed).
func (m *Model) clearSelection() {
	if m.sel.shown || m.sel.dragging {
		m.sel = selection{}
		m.trDirty = true
	}
}

// posAt maps a transcript cell to a text position; a row under the last
// line maps to the end of the last line.
func (m *Model) posAt(x, y int) (textPos, bool) {
	rows := m.tr.rows
	if y < 0 || y >= len(rows) {
		return textPos{}, false
	}
	r := rows[y]
	if r.entry < 0 {
		for y > 0 && rows[y].entry < 0 {
			y--
		}
		if r = rows[y]; r.entry < 0 {
			return textPos{}, false
		}
		return textPos{r.entry, r.line, 1 << 20}, true
	}
	return textPos{r.entry, r.line, max(0, x)}, true
}

// selectedText is the selection as plain text: the items' gutters and
// card rules left out, soft-wrapped lines joined again.
func (m *Model) selectedText() string {
	from, to := m.sel.ordered()
	rc := m.renderCtx()
	var b strings.Builder
	started, join, space := false, false, false
	for i := from.entry; i <= to.entry && i < m.tr.len(); i++ {
		ls := m.tr.visibleLines(i, rc)
		first, last := 0, len(ls)-1
		if i == from.entry {
			first = from.line
		}
		if i == to.entry {
			last = min(last, to.line)
		}
		it := m.tr.entries[i].it
		for l := first; l <= last; l++ {
			raw := ansi.Strip(ls[l])
			start, end := 0, ansi.StringWidth(raw)
			if i == from.entry && l == from.line {
				start = from.col
			}
			if i == to.entry && l == to.line {
				end = min(end, to.col+1)
			}
			g := gutterWidth(it, raw)
			text := strings.TrimRight(ansi.Cut(raw, max(start, g), end), " ")
			switch {
			case !started:
			case join && space:
				b.WriteByte(' ')
			case !join:
				b.WriteByte('\n')
			}
			started = true
			b.WriteString(text)
			join, space = false, false
			if l+1 < len(ls) && !isCardHeader(it, raw) {
				next := ansi.Strip(ls[l+1])
				join = softWrapped(raw, next, g, gutterWidth(it, next), m.tr.width)
				// A greedy wrap splits a word only when it fills a
				// line alone: otherwise the break ate a space.
				space = strings.Contains(strings.TrimSpace(ansi.Cut(raw, g, 1<<20)), " ")
			}
		}
	}
	return b.String()
}

// gutterWidth is how many columns of a rendered line are gutter: the
// glyph column of messages and notices, a tool card's indent and its
// "│ " rule.
func gutterWidth(it item, raw string) int {
	switch it.(type) {
	case *toolBatch:
		n := len(raw) - len(strings.TrimLeft(raw, " "))
		rest := raw[n:]
		if strings.HasPrefix(rest, "│ ") {
			return n + 2
		}
		return n
	case *reasoningItem:
		if strings.HasPrefix(raw, "│ ") {
			return 2
		}
		return 0
	}
	return min(2, ansi.StringWidth(raw))
}

// isCardHeader reports a tool card's header line: never part of a wrap.
func isCardHeader(it item, raw string) bool {
	if _, ok := it.(*toolBatch); !ok {
		return false
	}
	t := strings.TrimLeft(raw, " ")
	return !strings.HasPrefix(t, "│")
}

// softWrapped guesses whether line cur was broken by the wrap rather than
// by a line break of the text: a greedy wrap breaks only when the next
// word did not fit, so the line must be full up to that word.
func softWrapped(cur, next string, gCur, gNext, width int) bool {
	if gCur != gNext {
		return false
	}
	body := strings.TrimRight(cur, " ")
	nb := strings.TrimLeft(ansi.Cut(next, gNext, 1<<20), " ")
	if nb == "" || ansi.StringWidth(body) <= gCur {
		return false
	}
	word, _, _ := strings.Cut(nb, " ")
	// glamour wraps a column or two short of its width: allow for it.
	return ansi.StringWidth(body)+1+ansi.StringWidth(word) > width-2
}

// highlight draws the selection over the visible rows of the transcript.
func (m *Model) highlight(lines []string) {
	if !m.sel.shown {
		return
	}
	from, to := m.sel.ordered()
	rev := lipgloss.NewStyle().Reverse(true)
	for y, r := range m.tr.rows {
		if y >= len(lines) || r.entry < 0 {
			continue
		}
		p := textPos{r.entry, r.line, 0}
		if p.before(textPos{from.entry, from.line, 0}) || (textPos{to.entry, to.line, 0}).before(p) {
			continue
		}
		w := ansi.StringWidth(lines[y])
		start, end := 0, w
		if r.entry == from.entry && r.line == from.line {
			start = min(from.col, w)
		}
		if r.entry == to.entry && r.line == to.line {
			end = min(w, to.col+1)
		}
		if start >= end {
			continue
		}
		l := lines[y]
		lines[y] = ansi.Cut(l, 0, start) + rev.Render(ansi.Strip(ansi.Cut(l, start, end))) + ansi.Cut(l, end, w)
	}
}
