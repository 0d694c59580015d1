package ui

import (
	"context"
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
// those matching the filter, the sessions found by a full-text search,
// the highlighted one and the scroll position.
type picker struct {
	all     []SessionInfo
	matches []int         // indices into all, in order
	hits    []SessionInfo // full-text hits not in matches, with snippets
	sel     int           // index into the rows: matches, then hits
	top     int           // first visible row
	filter  editor
	current string    // the session on screen, marked in the list
	now     time.Time // when the list came, for the "3h ago" column

	searching bool               // a full-text search is on its way
	stop      context.CancelFunc // cancels it (or the model list's fetch); nil when none
	note      string             // why the last search failed

	// models, when set, makes this /model's picker (model_picker.go);
	// setup, the first-run setup dialog (setup_dialog.go). The filter is
	// their text input.
	models *modelPicker
	setup  *setupDialog
}

// newPicker lists the sessions, every one matching.
func newPicker(list []SessionInfo, current string, width int, now time.Time) *picker {
	p := &picker{all: list, current: current, filter: newEditor(1), now: now}
	p.filter.setWidth(width)
	p.refilter()
	return p
}

// refilter keeps the sessions whose title or id contains the filter,
// ignoring case, drops the full-text hits of the last filter and
// highlights the first row.
func (p *picker) refilter() {
	q := strings.ToLower(strings.TrimSpace(p.filter.value()))
	p.matches = p.matches[:0]
	for i, s := range p.all {
		if q == "" || strings.Contains(strings.ToLower(s.Title), q) || strings.Contains(strings.ToLower(s.ID), q) {
			p.matches = append(p.matches, i)
		}
	}
	p.hits, p.note = nil, ""
	p.sel, p.top = 0, 0
}

// count is the number of rows: the matches, then the hits.
func (p *picker) count() int { return len(p.matches) + len(p.hits) }

// row returns row i.
func (p *picker) row(i int) SessionInfo {
	if i < len(p.matches) {
		return p.all[p.matches[i]]
	}
	return p.hits[i-len(p.matches)]
}

// height is how many lines row i takes: two with a snippet.
func (p *picker) height(i int) int {
	if p.row(i).Snippet != "" {
		return 2
	}
	return 1
}

// fits reports whether rows a up to b take at most room lines.
func (p *picker) fits(a, b, room int) bool {
	for i := a; i < b && room >= 0; i++ {
		room -= p.height(i)
	}
	return room >= 0
}

// move moves the highlight by d rows, clamped, and scrolls within room
// lines.
func (p *picker) move(d, room int) {
	if p.count() == 0 {
		return
	}
	p.sel = max(0, min(p.count()-1, p.sel+d))
	p.scroll(room)
}

// scroll keeps the highlight within the room visible lines, and no room
// unused below the last row.
func (p *picker) scroll(room int) {
	room, n := max(1, room), p.count()
	p.sel = max(0, min(p.sel, n-1))
	if p.sel < p.top {
		p.top = p.sel
	}
	for p.top < p.sel && !p.fits(p.top, p.sel+1, room) {
		p.top++
	}
	for p.top > 0 && p.fits(p.top-1, n, room) {
		p.top--
	}
	p.top = max(0, min(p.top, n-1))
}

// selected returns the highlighted session.
func (p *picker) selected() (SessionInfo, bool) {
	if p.count() == 0 {
		return SessionInfo{}, false
	}
	return p.row(p.sel), true
}

// openPicker shows the session list, or says there is none.
func (m *Model) openPicker(list []SessionInfo) tea.Cmd {
	if len(list) == 0 {
		m.notice(noticeMuted, "no sessions yet")
		return nil
	}
	m.modal.picker = newPicker(list, m.ses.id, m.pickerFilterWidth(), m.clock())
	m.modal.searchSeq++ // an answer meant for a picker since closed is stale
	m.chromeDirty = true
	return nil
}

// pickerFilterWidth is the width of the filter input.
func (m *Model) pickerFilterWidth() int { return max(4, m.innerWidth()-len(pickerPrompt)) }

// pickerRows is how many lines the sessions may take: at most
// pickerMaxRows, leaving the status line, the border, title, filter and
// footer lines. A session with a snippet takes two.
func (m *Model) pickerRows() int { return max(1, min(pickerMaxRows, m.high-1-5)) }

// pickerKey handles a key in the picker: moving, resuming, closing; the
// rest edits the filter.
func (m *Model) pickerKey(msg tea.KeyPressMsg) tea.Cmd {
	p, rows := m.modal.picker, m.pickerRows()
	switch {
	case p.setup != nil:
		return m.setupKey(msg)
	case p.models != nil:
		return m.modelPickerKey(msg)
	}
	m.chromeDirty = true
	switch msg.String() {
	case "esc":
		m.closePicker()
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
			return m.pickerFiltered()
		}
	}
	return nil
}

// resumePicked resumes the highlighted session through Port.Resume,
// the way /resume ID does. While a turn or another session command runs
// it only says to wait.
func (m *Model) resumePicked() tea.Cmd {
	s, ok := m.modal.picker.selected()
	cb := m.agent
	switch {
	case !ok:
		return nil
	case !m.can.Resume:
		m.closePicker()
		m.notice(noticeMuted, "/resume is not available yet")
		return nil
	case m.turn.busy:
		return m.setHint("resuming is refused while a turn runs: interrupt it first · esc closes the list", 3*time.Second)
	case m.pending != "":
		return m.setHint("resuming is refused while /"+m.pending+" runs: try again when it ends · esc closes the list", 3*time.Second)
	}
	m.closePicker()
	m.setPending("resume")
	ctx, id := m.ctx, s.ID
	return func() tea.Msg { s, err := cb.Resume(ctx, id); return sessionResult(s, err) }
}

// pickerParts lays out the picker: title with counts, filter, the visible
// sessions, a failed search's note and the key hints.
func (m *Model) pickerParts() []boxPart {
	switch p := m.modal.picker; {
	case p.setup != nil:
		return m.setupParts()
	case p.models != nil:
		return m.modelPickerParts()
	}
	p, st, w, room := m.modal.picker, m.look.st, m.innerWidth(), m.pickerRows()
	p.scroll(room)
	title := st.Accent.Render("Resume a session") + st.Muted.Render(pickerCounts(p))
	hint := "type part of a title or an id"
	if m.can.Search {
		hint = "type part of a title, an id or a message"
	}
	parts := []boxPart{
		{lines: []string{ansi.Truncate(title, w, "…")}},
		m.inputPart(p.filter, pickerPrompt, hint),
	}
	var rows []string
	for i := p.top; i < p.count() && (i == p.top || len(rows)+p.height(i) <= room); i++ {
		rows = append(rows, m.sessionLines(p.row(i), i == p.sel, w)...)
	}
	if len(rows) == 0 {
		rows = []string{st.Muted.Render(ansi.Truncate("  no session matches", w, "…"))}
	}
	parts = append(parts, boxPart{lines: rows, rank: 3, keep: 1})
	if p.note != "" {
		parts = append(parts, boxPart{lines: []string{st.Faint.Render(ansi.Truncate("  "+p.note, w, "…"))}, rank: 1})
	}
	return append(parts, m.footer("↑↓ move · pgup/pgdn page · enter resume · esc close"))
}

// pickerCounts says how many sessions match of how many, how many more
// the full-text search found, and whether it is still searching.
func pickerCounts(p *picker) string {
	s := fmt.Sprintf(" · %d of %d", len(p.matches), len(p.all))
	if len(p.hits) > 0 {
		s += fmt.Sprintf(" · %d more in messages", len(p.hits))
	}
	if p.searching {
		s += " · searching…"
	}
	return s
}

// sessionLines draws one session: its row, and under it the snippet of
// a full-text hit, faint unless highlighted.
func (m *Model) sessionLines(s SessionInfo, selected bool, w int) []string {
	row := m.sessionRow(s, selected, w)
	if s.Snippet == "" {
		return []string{row}
	}
	snip := ansi.Truncate(strings.Repeat(" ", 12)+oneLine(s.Snippet), w, "…")
	if selected {
		return []string{row, m.look.st.PopupSelected.Render(padRight(snip, w))}
	}
	return []string{row, m.look.st.Faint.Render(snip)}
}

// sessionRow draws a session's row: short id, title, how long ago it was
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
