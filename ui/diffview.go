package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"talaria/tools"
)

// diffViewCap is the most diff lines an approval dialog keeps; the pager
// and the card after the call have the rest.
const diffViewCap = 5000

// diffView is the change an approval of write_file or patch would make,
// computed off the Update goroutine before the user answers, and where the
// dialog has scrolled to in it.
type diffView struct {
	lines          []string // the diff's lines, capped at diffViewCap
	cut            int      // lines left out past the cap
	added, removed int
	paths          string // the files it touches, for the title
	err            string // why there is no diff ("" when there is one)
	top            int    // first row shown
	full           bool   // the diff takes the whole screen
	// rows are the lines wrapped to rowsW columns (a continuation row
	// starts with "↪ "); top and the window count rows.
	rows  []string
	rowsW int
}

// diffContinued marks a row that goes on the diff line above it.
const diffContinued = "↪ "

// wrapped returns the diff's rows at w columns: a line too long is
// wrapped, not cut, each continuation row marked.
func (v *diffView) wrapped(w int) []string {
	w = max(4, w)
	if v.rows != nil && v.rowsW == w {
		return v.rows
	}
	v.rows, v.rowsW = v.rows[:0], w
	for _, l := range v.lines {
		l = strings.ReplaceAll(sanitize(strings.TrimSuffix(l, "\r")), "\t", "    ")
		if ansi.StringWidth(l) <= w {
			v.rows = append(v.rows, l)
			continue
		}
		first := ansi.Cut(l, 0, w)
		v.rows = append(v.rows, first)
		rest := strings.TrimPrefix(ansi.TruncateLeft(l, w, ""), " ") // the space the break fell on
		for _, c := range strings.Split(ansi.Hardwrap(rest, w-2, true), "\n") {
			v.rows = append(v.rows, diffContinued+c)
		}
	}
	return v.rows
}

// diffReadyMsg delivers the change of an approval request.
type diffReadyMsg struct {
	req  *dialogRequest
	view *diffView
}

// previewDiff computes the change of an edit approval in a command: it
// reads the files, so it stays out of Update.
func previewDiff(r *dialogRequest, cwd string) tea.Cmd {
	if r.kind != dialogApproval || !isWriter(r.approval.Tool) {
		return nil
	}
	tool, args := r.approval.Tool, r.approval.Args
	return func() tea.Msg { return diffReadyMsg{req: r, view: newDiffView(cwd, tool, args)} }
}

// newDiffView previews a call's change and splits it for the dialog.
func newDiffView(cwd, tool, args string) *diffView {
	p, err := tools.PreviewEdit(cwd, tool, args)
	if err != nil {
		return &diffView{err: err.Error()}
	}
	d := p.Diff()
	v := &diffView{}
	var paths []string
	for _, f := range p.Files {
		switch {
		case f.OldPath == "":
			paths = append(paths, f.NewPath+" (new)")
		case f.NewPath == "":
			paths = append(paths, f.OldPath+" (deleted)")
		case f.OldPath != f.NewPath:
			paths = append(paths, f.OldPath+" → "+f.NewPath)
		default:
			paths = append(paths, f.NewPath)
		}
	}
	v.paths = strings.Join(paths, ", ")
	if d == "" {
		v.err = "no change"
		return v
	}
	all := strings.Split(strings.TrimSuffix(d, "\n"), "\n")
	v.added, v.removed = tools.DiffStats(d)
	if len(all) > diffViewCap {
		v.cut = len(all) - diffViewCap
		all = all[:diffViewCap]
	}
	v.lines = all
	return v
}

// handleDiffReady attaches a computed change to its request.
func (m *Model) handleDiffReady(msg diffReadyMsg) tea.Cmd {
	msg.req.diff = msg.view
	m.chromeDirty = true
	return nil
}

// hasDiff reports whether r shows a diff.
func (r *dialogRequest) hasDiff() bool { return r != nil && r.diff != nil && len(r.diff.lines) > 0 }

// diffKey scrolls the diff of the approval on screen: ↑↓ a line,
// PgUp/PgDn a page, Home/End, f full screen. It reports false for the
// other keys and when no diff is shown.
func (m *Model) diffKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	r := m.dialog()
	if !r.hasDiff() || m.modal.typing {
		return nil, false
	}
	v := r.diff
	page := max(1, m.diffShown(r)-1)
	switch msg.String() {
	case "up", "k":
		v.top--
	case "down", "j":
		v.top++
	case "pgup":
		v.top -= page
	case "pgdown", "space":
		v.top += page
	case "home", "g":
		v.top = 0
	case "end", "G":
		v.top = len(v.wrapped(m.innerWidth() - 2))
	case "f":
		v.full = !v.full
	case "tab":
		m.moveOption(false, len(dialogOptions(r)))
		return nil, true
	case "shift+tab":
		m.moveOption(true, len(dialogOptions(r)))
		return nil, true
	default:
		return nil, false
	}
	v.top = max(0, min(v.top, len(v.wrapped(m.innerWidth()-2))-m.diffShown(r)))
	m.chromeDirty = true
	return nil, true
}

// diffRows is how many diff lines the dialog has room for.
func (m *Model) diffRows(r *dialogRequest) int {
	end := m.approvalEnd(r, m.innerWidth())
	n := 0
	for _, p := range end {
		n += len(p.lines)
	}
	rows := m.high - 3 - 1 - n - 1 // status line, borders, title, choices and hints, blank
	if !r.diff.full {
		rows -= 2                          // the summary and a blank line
		rows = min(rows, max(6, m.high/2)) // the transcript stays in sight
	}
	return max(1, rows)
}

// diffShown is how many diff lines the window shows: all its rows, less
// one for the position note when the diff does not fit.
func (m *Model) diffShown(r *dialogRequest) int {
	rows := m.diffRows(r)
	if len(r.diff.wrapped(m.innerWidth()-2)) > rows || r.diff.cut > 0 {
		return max(1, rows-1)
	}
	return rows
}

// diffParts lays out an edit approval with its diff: the title with the
// paths and counts, the summary, the visible window of the coloured diff,
// then the choices.
func (m *Model) diffParts(r *dialogRequest, end []boxPart) []boxPart {
	st, w, v := m.look.st, m.innerWidth(), r.diff
	title := st.Strong.Render("Allow ") + st.ToolName.Render(oneLine(r.approval.Tool)) + st.Strong.Render("? ") +
		st.Text.Render(oneLine(v.paths)) + " " + st.DiffAdd.Render(fmt.Sprintf("+%d", v.added)) + " " + st.DiffDel.Render(fmt.Sprintf("-%d", v.removed)) + m.waitingNote()
	parts := []boxPart{{lines: []string{ansi.Truncate(title, w, "…")}}}
	if !v.full {
		summary, _ := splitDestructive(r.approval)
		parts = append(parts, boxPart{lines: []string{st.Text.Render(ansi.Truncate(oneLine(summary), w, "…"))}, rank: 3})
	}
	rows := m.diffShown(r)
	all := v.wrapped(w - 2)
	top := max(0, min(v.top, len(all)-rows))
	var lines []string
	gutter := st.ToolRule.Render("│ ")
	kind := ""
	for i := range top {
		if !strings.HasPrefix(all[i], diffContinued) {
			kind = all[i] // the line a first continuation row goes on
		}
	}
	for _, l := range all[top:min(len(all), top+rows)] {
		if c, ok := strings.CutPrefix(l, diffContinued); ok {
			lines = append(lines, gutter+st.Faint.Render(diffContinued)+diffLineStyleOf(m, kind, c))
			continue
		}
		kind = l
		lines = append(lines, gutter+diffLineStyle(m, l))
	}
	if rows < m.diffRows(r) {
		note := fmt.Sprintf("lines %d-%d of %d", top+1, min(len(all), top+rows), len(all))
		if v.cut > 0 {
			note += fmt.Sprintf(" (%d more after the run, in ctrl+t)", v.cut)
		}
		lines = append(lines, gutter+st.Faint.Render(ansi.Truncate(note, max(1, w-2), "…")))
	}
	parts = append(parts, boxPart{lines: lines, rank: 1, keep: 1}, boxPart{lines: []string{""}, rank: 2})
	return append(parts, end...)
}

// diffLineStyle colours one diff line.
func diffLineStyle(m *Model, l string) string { return diffLineStyleOf(m, l, l) }

// diffLineStyleOf colours text like the diff line l (text is l, or a
// continuation of it).
func diffLineStyleOf(m *Model, l, text string) string {
	st := m.look.st
	switch {
	case strings.HasPrefix(l, "+++ ") || strings.HasPrefix(l, "--- "):
		return st.Strong.Render(text)
	case strings.HasPrefix(l, "@@"):
		return st.DiffHunk.Render(text)
	case strings.HasPrefix(l, "+"):
		return st.DiffAdd.Render(text)
	case strings.HasPrefix(l, "-"):
		return st.DiffDel.Render(text)
	}
	return st.ToolOutput.Render(text)
}

// diffFooter is the key hint line of an approval with a diff.
func (m *Model) diffFooter() boxPart {
	return m.footer("↑↓ scroll · f full screen · ctrl+t pager · enter confirm · esc deny")
}
