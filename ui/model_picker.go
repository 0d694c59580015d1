package ui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// modelPickerMaxRows is how many models the picker shows at once.
const modelPickerMaxRows = 10

// modelLoadTimeout bounds one fetch of the list from the picker.
const modelLoadTimeout = 15 * time.Second

// modelPicker is /model's list: the models, those matching the filter
// (the picker's filter editor), the highlighted row and the scroll.
type modelPicker struct {
	provider   string
	current    string
	models     []string        // configured first, then the listed ones
	configured map[string]bool // which of models are configured
	pinned     []string        // listed first whatever the endpoint says (the setup's default)
	pinnedTag  string          // what the row of a pinned model says ("default")
	matches    []int           // indices into models
	sel, top   int
	loading    bool
	note       string
	// choose is what Enter does with the chosen model, "" when the
	// picker only shows (the setup dialog's model step sets its own).
	choose func(m *Model, name string) tea.Cmd
	// title heads the box.
	title string
}

// newModelPicker lists list, the current model marked.
func newModelPicker(provider, current string) *modelPicker {
	mp := &modelPicker{provider: provider, current: current, configured: map[string]bool{}, loading: true, title: "Switch the model"}
	if current != "" {
		mp.setList(ModelList{Provider: provider, Configured: []string{current}})
		mp.loading = true
	}
	return mp
}

// setList fills the picker: configured models first, then the listed
// ones not among them, each once.
func (mp *modelPicker) setList(l ModelList) {
	mp.loading = false
	mp.note = l.Note
	if l.Provider != "" {
		mp.provider = l.Provider
	}
	mp.models, mp.configured = nil, map[string]bool{}
	seen := map[string]bool{}
	add := func(name string, configured bool) {
		name = strings.TrimSpace(name)
		if name == "" || seen[name] {
			return
		}
		seen[name] = true
		mp.models = append(mp.models, name)
		mp.configured[name] = configured
	}
	if mp.current != "" {
		add(mp.current, true)
	}
	for _, n := range mp.pinned {
		add(n, true)
	}
	for _, n := range l.Configured {
		add(n, true)
	}
	for _, n := range l.Listed {
		add(n, false)
	}
	if len(l.Listed) == 0 && mp.note == "" {
		mp.note = "the provider listed no models"
	}
}

// refilter keeps the models that contain every word of the filter,
// ignoring case, in order, and highlights the first.
func (mp *modelPicker) refilter(filter string) {
	words := strings.Fields(strings.ToLower(filter))
	mp.matches = mp.matches[:0]
	for i, n := range mp.models {
		ln := strings.ToLower(n)
		ok := true
		for _, w := range words {
			if !strings.Contains(ln, w) {
				ok = false
				break
			}
		}
		if ok {
			mp.matches = append(mp.matches, i)
		}
	}
	mp.sel, mp.top = 0, 0
}

// move moves the highlight by d rows within room visible rows.
func (mp *modelPicker) move(d, room int) {
	if len(mp.matches) == 0 {
		return
	}
	mp.sel = max(0, min(len(mp.matches)-1, mp.sel+d))
	mp.scroll(room)
}

// scroll keeps the highlight visible.
func (mp *modelPicker) scroll(room int) {
	room = max(1, room)
	mp.sel = max(0, min(mp.sel, len(mp.matches)-1))
	if mp.sel < mp.top {
		mp.top = mp.sel
	}
	if mp.sel >= mp.top+room {
		mp.top = mp.sel - room + 1
	}
	mp.top = max(0, min(mp.top, max(0, len(mp.matches)-room)))
}

// chosen is the model Enter takes: the highlighted one, or the filter as
// typed when nothing matches it (a model the endpoint does not list).
func (mp *modelPicker) chosen(filter string) string {
	if len(mp.matches) > 0 {
		return mp.models[mp.matches[mp.sel]]
	}
	if f := strings.TrimSpace(filter); f != "" && !strings.ContainsAny(f, " \t") {
		return f
	}
	return ""
}

// openModelPicker is /model with no argument: the picker opens at once
// with the model in use, and the provider's list follows. With no
// provider yet it offers the setup dialog instead.
func (m *Model) openModelPicker() tea.Cmd {
	if m.ses.provider == "" && m.ses.model == "" {
		if m.can.Setup {
			return m.openSetup("")
		}
		m.notice(noticeInfo, noProviderModelText)
		return nil
	}
	if !m.can.Models {
		m.notice(noticeInfo, fmt.Sprintf("model: %s/%s · /model [provider/]name switches", m.ses.provider, m.ses.model))
		return nil
	}
	m.closePicker()
	p := newPicker(nil, m.ses.id, m.pickerFilterWidth(), m.clock())
	p.models = newModelPicker(m.ses.provider, m.ses.model)
	p.models.refilter("")
	provider := m.ses.provider
	p.models.choose = func(m *Model, name string) tea.Cmd {
		// A name with a slash (openrouter's "openai/gpt-4.1") would
		// otherwise be read as PROVIDER/NAME.
		if strings.Contains(name, "/") {
			name = provider + "/" + name
		}
		return m.switchModel(m.ctx, name)
	}
	m.modal.picker = p
	m.chromeDirty = true
	return m.loadModels(p, m.agent.Models)
}

// loadModels fetches the list for picker p in a command; the answer is
// dropped when p has closed meanwhile.
func (m *Model) loadModels(p *picker, list func(ctx context.Context) (ModelList, error)) tea.Cmd {
	ctx, stop := context.WithTimeout(m.ctx, modelLoadTimeout)
	p.stop = stop
	return func() tea.Msg {
		defer stop()
		l, err := list(ctx)
		return commandResultMsg{apply: func(m *Model) tea.Cmd {
			if m.modal.picker != p || p.models == nil {
				return nil
			}
			if err != nil {
				l = ModelList{Note: "listing the models failed: " + oneLine(errText(err))}
			}
			mp := p.models
			mp.setList(l)
			mp.refilter(p.filter.value())
			m.chromeDirty = true
			return nil
		}}
	}
}

// modelPickerRows is how many models the picker shows: at most
// modelPickerMaxRows, leaving the status line, the border, the title,
// the filter, the note and the footer.
func (m *Model) modelPickerRows() int { return max(1, min(modelPickerMaxRows, m.high-1-6)) }

// modelPickerKey handles a key in the model picker: moving, choosing,
// closing; the rest edits the filter.
func (m *Model) modelPickerKey(msg tea.KeyPressMsg) tea.Cmd {
	p := m.modal.picker
	mp, rows := p.models, m.modelPickerRows()
	m.chromeDirty = true
	switch msg.String() {
	case "esc":
		if p.setup != nil {
			return m.setupBack()
		}
		m.closePicker()
	case "enter":
		name := mp.chosen(p.filter.value())
		if name == "" || mp.choose == nil {
			return nil
		}
		choose := mp.choose
		if p.setup == nil {
			if !m.mayChangeSession("/model") {
				return nil
			}
			m.closePicker()
			m.setPending("model")
		}
		return choose(m, name)
	case "up", "ctrl+p":
		mp.move(-1, rows)
	case "down", "ctrl+n":
		mp.move(1, rows)
	case "pgup":
		mp.move(-rows, rows)
	case "pgdown":
		mp.move(rows, rows)
	case "shift+enter", "ctrl+j", "tab":
	default:
		before := p.filter.value()
		p.filter.update(msg)
		if p.filter.value() != before {
			mp.refilter(p.filter.value())
		}
	}
	return nil
}

// modelPickerParts lays out the model picker: title with counts, filter,
// the visible models, the note and the key hints.
func (m *Model) modelPickerParts() []boxPart {
	p := m.modal.picker
	mp, st, w, room := p.models, m.look.st, m.innerWidth(), m.modelPickerRows()
	mp.scroll(room)
	counts := fmt.Sprintf(" · %s · %d of %d", mp.provider, len(mp.matches), len(mp.models))
	if mp.loading {
		counts += " · loading…"
	}
	parts := []boxPart{
		{lines: []string{ansi.Truncate(st.Accent.Render(mp.title)+st.Muted.Render(counts), w, "…")}},
		m.inputPart(p.filter, pickerPrompt, "type part of a model name"),
	}
	var rows []string
	for i := mp.top; i < len(mp.matches) && i < mp.top+room; i++ {
		rows = append(rows, m.modelRow(mp, mp.models[mp.matches[i]], i == mp.sel, w))
	}
	if len(rows) == 0 {
		text := "  no model matches"
		if len(mp.models) == 0 && !mp.loading {
			text = "  no models listed · type a model name, enter uses it"
		}
		if name := mp.chosen(p.filter.value()); name != "" {
			text = "  no model matches · enter uses " + name + " as typed"
		} else if mp.loading {
			text = "  loading…"
		}
		rows = []string{st.Muted.Render(ansi.Truncate(text, w, "…"))}
	}
	parts = append(parts, boxPart{lines: rows, rank: 3, keep: 1})
	if mp.note != "" {
		var lines []string
		for i, l := range wrapText(mp.note, max(1, w-2)) {
			if i == 2 {
				lines[1] = ansi.Truncate(lines[1]+" …", w, "…")
				break
			}
			lines = append(lines, st.Faint.Render(ansi.Truncate("  "+l, w, "…")))
		}
		parts = append(parts, boxPart{lines: lines, rank: 1, keep: 1})
	}
	hint := "↑↓ move · enter switch · esc close"
	if p.setup != nil {
		hint = "↑↓ move · enter use this model · esc back"
	}
	return append(parts, m.footer(hint))
}

// modelRow draws one model: its name, and whether it is the one in use
// or a configured one.
func (m *Model) modelRow(mp *modelPicker, name string, selected bool, w int) string {
	tag := ""
	switch {
	case name == mp.current:
		tag = "current"
	case slices.Contains(mp.pinned, name):
		tag = or(mp.pinnedTag, "configured")
	case mp.configured[name]:
		tag = "configured"
	}
	nameW := max(1, w-2-len(tag)-2)
	row := padRight(ansi.Truncate(name, nameW, "…"), nameW)
	if tag != "" {
		row += "  " + tag
	}
	if selected {
		return m.look.st.PopupSelected.Render(padRight(ansi.Truncate("› "+row, w, "…"), w))
	}
	line := m.look.st.Text.Render("  " + padRight(ansi.Truncate(name, nameW, "…"), nameW))
	if tag != "" {
		line += m.look.st.Muted.Render("  " + tag)
	}
	return line
}
