package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// rewindRows is how many turns the list shows at once (two lines each).
func (m *Model) rewindRows() int { return max(1, min(8, (m.high-1-5)/2)) }

// rewindBox draws the rewind list or the diff in the composer's place.
func (m *Model) rewindBox() string {
	if m.rw.diff != nil {
		return m.modalBox(m.look.st.Composer, m.treeDiffParts(), nil)
	}
	return m.modalBox(m.look.st.Composer, m.rewindParts(), nil)
}

// rewindParts lays out the open stage of the rewind modal.
func (m *Model) rewindParts() []boxPart {
	r, st, w := m.rw.modal, m.look.st, m.innerWidth()
	switch r.stage {
	case stageMode:
		p := r.points[r.sel]
		modes := rewindModes()
		labels := make([]string, len(modes))
		for i, md := range modes {
			labels[i] = md.label
		}
		return []boxPart{
			{lines: []string{ansi.Truncate(st.Accent.Render(fmt.Sprintf("Rewind to before turn %d", p.Turn)), w, "…")}},
			{lines: []string{st.Muted.Render(ansi.Truncate("  "+oneLine(p.Input), w, "…"))}, rank: 1},
			{lines: m.choiceLines(labels, r.mode, w)},
			m.footer("enter choose · esc back · the message goes back in the composer"),
		}
	case stageForce:
		lines := []string{ansi.Truncate(st.Warning.Render(fmt.Sprintf("%d file%s changed outside talaria since this session last recorded %s:",
			len(r.refused), plural(len(r.refused)), map[bool]string{true: "it", false: "them"}[len(r.refused) == 1])), w, "…")}
		var files []string
		for _, f := range r.refused {
			files = append(files, st.Text.Render(ansi.Truncate("  "+oneLine(f), w, "…")))
		}
		return []boxPart{
			{lines: lines},
			{lines: files, rank: 1, keep: 1},
			{lines: m.choiceLines([]string{"Overwrite them with the checkpoint (y)", "Keep them as they are (n)"}, r.mode, w)},
			m.footer("enter choose · esc keep them"),
		}
	}
	rows := m.rewindRows()
	r.top = min(max(r.top, r.sel-rows+1), r.sel)
	title := st.Accent.Render("Rewind") + st.Muted.Render(fmt.Sprintf(" · %d turn%s · newest first", len(r.points), plural(len(r.points))))
	var lines []string
	for i := r.top; i < len(r.points) && i < r.top+rows; i++ {
		lines = append(lines, m.rewindRow(r.points[i], i == r.sel, w)...)
	}
	return []boxPart{
		{lines: []string{ansi.Truncate(title, w, "…")}},
		{lines: lines, rank: 3, keep: 2},
		m.footer("↑↓ move · enter choose · esc close"),
	}
}

// rewindRow draws one turn: its number and message, and under it the
// files its turn changed.
func (m *Model) rewindRow(p RewindPoint, selected bool, w int) []string {
	st := m.look.st
	row := fmt.Sprintf("turn %-3d %s", p.Turn, oneLine(p.Input))
	files := "no file changes"
	if len(p.Files) > 0 {
		files = strings.Join(p.Files, " · ")
	}
	second := st.Faint.Render(ansi.Truncate("    "+oneLine(files), w, "…"))
	if selected {
		return []string{st.PopupSelected.Render(padRight(ansi.Truncate("› "+row, w, "…"), w)), second}
	}
	return []string{st.Text.Render(ansi.Truncate("  "+row, w, "…")), second}
}

// choiceLines draws numbered choices with sel highlighted.
func (m *Model) choiceLines(labels []string, sel, w int) []string {
	st := m.look.st
	out := make([]string, len(labels))
	for i, l := range labels {
		l = fmt.Sprintf("%d. %s", i+1, l)
		if i == sel {
			out[i] = st.PopupSelected.Render(padRight(ansi.Truncate("› "+l, w, "…"), w))
		} else {
			out[i] = st.Text.Render(ansi.Truncate("  "+l, w, "…"))
		}
	}
	return out
}
