package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// diffMaxLines caps the lines the diff view keeps (the rest is counted).
const diffMaxLines = 20000

// treeDiffView is the scrollable /diff view.
type treeDiffView struct {
	lines   []string // sanitized, tabs expanded, not yet styled
	top     int
	dropped int // lines past diffMaxLines
}

// openDiff shows a unified diff.
func (m *Model) openDiff(d string) {
	raw := strings.Split(strings.TrimRight(d, "\n"), "\n")
	v := &treeDiffView{}
	if len(raw) > diffMaxLines {
		v.dropped = len(raw) - diffMaxLines
		raw = raw[:diffMaxLines]
	}
	v.lines = make([]string, len(raw))
	for i, l := range raw {
		v.lines[i] = sanitize(strings.ReplaceAll(l, "\t", "    "))
	}
	m.rw.diff = v
	m.chromeDirty = true
}

// diffRoom is how many diff lines fit: the screen less the status line,
// the box's borders, title and footer.
func (m *Model) diffRoom() int { return max(1, m.high-1-4) }

// treeDiffKey scrolls the diff; Esc or q closes it.
func (m *Model) treeDiffKey(msg tea.KeyPressMsg) tea.Cmd {
	v, room := m.rw.diff, m.diffRoom()
	last := max(0, len(v.lines)-room)
	switch msg.String() {
	case "esc", "q":
		m.closeRewind()
		return nil
	case "up", "k", "ctrl+p":
		v.top--
	case "down", "j", "ctrl+n", "enter":
		v.top++
	case "pgup", "b":
		v.top -= room
	case "pgdown", "space", " ", "f":
		v.top += room
	case "home", "g":
		v.top = 0
	case "end", "G":
		v.top = last
	default:
		return nil
	}
	v.top = min(max(0, v.top), last)
	m.chromeDirty = true
	return nil
}

// treeDiffParts lays out the visible part of the diff, coloured.
func (m *Model) treeDiffParts() []boxPart {
	v, st, w, room := m.rw.diff, m.look.st, m.innerWidth(), m.diffRoom()
	end := min(len(v.lines), v.top+room)
	shown := make([]string, 0, room)
	for _, l := range v.lines[v.top:end] {
		l = ansi.Truncate(l, w, "…")
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"), strings.HasPrefix(l, "diff "):
			l = st.Strong.Render(l)
		case strings.HasPrefix(l, "+"):
			l = st.DiffAdd.Render(l)
		case strings.HasPrefix(l, "-"):
			l = st.DiffDel.Render(l)
		case strings.HasPrefix(l, "@@"):
			l = st.DiffHunk.Render(l)
		default:
			l = st.Text.Render(l)
		}
		shown = append(shown, l)
	}
	title := st.Accent.Render("Changes to the working tree") +
		st.Muted.Render(fmt.Sprintf(" · lines %d-%d of %d", v.top+1, end, len(v.lines)+v.dropped))
	if v.dropped > 0 {
		title += st.Muted.Render(fmt.Sprintf(" · last %d not shown", v.dropped))
	}
	return []boxPart{
		{lines: []string{ansi.Truncate(title, w, "…")}},
		{lines: shown, rank: 3, keep: 1},
		m.footer("↑↓ line · pgup/pgdn page · g/G top/end · esc close"),
	}
}
