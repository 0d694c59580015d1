package ui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// pickerMaxRows is how many sessions the picker lists at once.
const pickerMaxRows = 10

// pickerPrompt precedes the picker's filter.
const pickerPrompt = "Filter: "

// picker is the session picker of /sessions and /resume: the sessions,
// those matching the filter, the highlighted one and the scroll position.
type picker struct {
	all     []SessionInfo
	matches []int // indices into all, in order
	sel     int   // index into matches
	top     int   // first visible row
	filter  editor
	current string    // the session on screen, marked in the list
	now     time.Time // when the list came, for the "3h ago" column
}

// newPicker lists the sessions, every one matching.
func newPicker(list []SessionInfo, current string, width int, now time.Time) *picker {
	p := &picker{all: list, current: current, filter: newEditor(1), now: now}
	p.filter.setWidth(width)
	p.refilter()
	return p
}

// refilter keeps the sessions whose title or id contains the filter,
// ignoring case, and highlights the first.
func (p *picker) refilter() {
	q := strings.ToLower(strings.TrimSpace(p.filter.value()))
	p.matches = p.matches[:0]
	for i, s := range p.all {
		if q == "" || strings.Contains(strings.ToLower(s.Title), q) || strings.Contains(strings.ToLower(s.ID), q) {
			p.matches = append(p.matches, i)
		}
	}
	p.sel, p.top = 0, 0
}

// move moves the highlight by d rows, clamped, and scrolls rows rows.
func (p *picker) move(d, rows int) {
	if len(p.matches) == 0 {
		return
	}
	p.sel = max(0, min(len(p.matches)-1, p.sel+d))
	p.scroll(rows)
}

// scroll keeps the highlight within the rows visible rows.
func (p *picker) scroll(rows int) {
	rows = max(1, rows)
	if p.sel < p.top {
		p.top = p.sel
	}
	if p.sel >= p.top+rows {
		p.top = p.sel - rows + 1
	}
	p.top = max(0, min(p.top, len(p.matches)-rows))
}

// selected returns the highlighted session.
func (p *picker) selected() (SessionInfo, bool) {
	if len(p.matches) == 0 {
		return SessionInfo{}, false
	}
	return p.all[p.matches[p.sel]], true
}

// openPicker shows the session list, or says there is none.
func (m *Model) openPicker(list []SessionInfo) tea.Cmd {
	if len(list) == 0 {
		m.notice(noticeMuted, "no sessions yet")
		return nil
	}
	m.modal.picker = newPicker(list, m.ses.id, m.pickerFilterWidth(), m.clock())
	m.chromeDirty = true
	return nil
}

// pickerFilterWidth is the width of the filter input.
func (m *Model) pickerFilterWidth() int { return max(4, m.innerWidth()-len(pickerPrompt)) }

// pickerRows is how many sessions fit: at most pickerMaxRows, leaving
// the status line, the border, title, filter and footer lines.
func (m *Model) pickerRows() int { return max(1, min(pickerMaxRows, m.high-1-5)) }

// pickerKey handles a key in the picker: moving, resuming, closing; the
// rest edits the filter.
func (m *Model) pickerKey(msg tea.KeyPressMsg) tea.Cmd {
	p, rows := m.modal.picker, m.pickerRows()
	m.chromeDirty = true
	switch msg.String() {
	case "esc":
		m.modal.picker = nil
	case "enter":
		return m.resumePicked()
	case "up", "ctrl+p":
		p.move(-1, rows)
	case "down", "ctrl+n":
		p.move(1, rows)
	case "pgup":
		p.move(-rows, rows)
	case "pgdown":
		p.move(rows, rows)
	case "shift+enter", "ctrl+j", "tab":
	default:
		before := p.filter.value()
		p.filter.update(msg)
		if p.filter.value() != before {
			p.refilter()
		}
	}
	return nil
}

// resumePicked resumes the highlighted session through Commands.Resume,
// the way /resume ID does. While a turn runs it only says to wait.
func (m *Model) resumePicked() tea.Cmd {
	s, ok := m.modal.picker.selected()
	cb := m.opts.Commands.Resume
	switch {
	case !ok:
		return nil
	case cb == nil:
		m.modal.picker = nil
		m.notice(noticeMuted, "/resume is not available yet")
		return nil
	case m.turn.busy:
		return m.setHint("resuming waits for the turn to end · esc closes the list", 3*time.Second)
	}
	m.modal.picker = nil
	ctx, id := m.ctx, s.ID
	return func() tea.Msg { s, err := cb(ctx, id); return sessionResult(s, err) }
}

// pickerParts lays out the picker: title with counts, filter, the visible
// sessions and the key hints.
func (m *Model) pickerParts() []boxPart {
	p, st, w := m.modal.picker, m.look.st, m.innerWidth()
	p.scroll(m.pickerRows())
	title := st.Accent.Render("Resume a session") + st.Muted.Render(fmt.Sprintf(" · %d of %d", len(p.matches), len(p.all)))
	parts := []boxPart{
		{lines: []string{ansi.Truncate(title, w, "…")}},
		m.inputPart(p.filter, pickerPrompt, "type part of a title or an id"),
	}
	var rows []string
	for i := p.top; i < len(p.matches) && i < p.top+m.pickerRows(); i++ {
		rows = append(rows, m.sessionRow(p.all[p.matches[i]], i == p.sel, w))
	}
	if len(rows) == 0 {
		rows = []string{st.Muted.Render(ansi.Truncate("  no session matches", w, "…"))}
	}
	return append(parts, boxPart{lines: rows, rank: 3, keep: 1}, m.footer("↑↓ move · pgup/pgdn page · enter resume · esc close"))
}

// sessionRow draws one session: short id, title, how long ago it was
// updated and its message count; narrow screens drop the age, then the
// count.
func (m *Model) sessionRow(s SessionInfo, selected bool, w int) string {
	st := m.look.st
	title := oneLine(s.Title)
	if title == "" {
		title = "(untitled)"
	}
	if s.ID == m.modal.picker.current {
		title = "(current) " + title
	}
	date := fmt.Sprintf("  %10s", fmtAgo(m.modal.picker.now, s.Updated))
	count := fmt.Sprintf("  %4d %-4s", s.Messages, "msg"+plural(s.Messages))
	fixed := 2 + 8 + 2
	if w < fixed+len(date)+len(count)+12 {
		date = ""
	}
	if w < fixed+len(count)+12 {
		count = ""
	}
	tw := max(1, w-fixed-len(date)-len(count))
	row := padRight(shortID(s.ID), 8) + "  " + padRight(ansi.Truncate(title, tw, "…"), tw) + date + count
	if selected {
		return st.PopupSelected.Render(padRight(ansi.Truncate("› "+row, w, "…"), w))
	}
	return st.Text.Render(ansi.Truncate("  "+row, w, "…"))
}

// fmtAgo says how long before now t was: "just now", "5m ago", "3h ago",
// "yesterday", "4d ago", or the date when it is a month or more.
func fmtAgo(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case t.IsZero():
		return ""
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	case d < 48*time.Hour:
		return "yesterday"
	case d < 30*24*time.Hour:
		return fmt.Sprintf("%dd ago", int(d.Hours()/24))
	}
	return t.Format("2006-01-02")
}
