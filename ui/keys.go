package ui

import (
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// keyMap holds the screen's own bindings. Everything else goes to the
// composer's textarea.
type keyMap struct {
	Send          key.Binding
	Newline       key.Binding
	Tab           key.Binding
	Esc           key.Binding
	CtrlC         key.Binding
	Up            key.Binding
	Down          key.Binding
	PageUp        key.Binding
	PageDown      key.Binding
	ToggleThought key.Binding
	ToggleMouse   key.Binding
	Pager         key.Binding
	FocusLane     key.Binding
	Approvals     key.Binding
	PasteImage    key.Binding
}

// defaultKeyMap returns the bindings of CONTRACT.md's key table plus the
// two toggles.
func defaultKeyMap() keyMap {
	return keyMap{
		Send:          key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "send · steer while busy")),
		Newline:       key.NewBinding(key.WithKeys("shift+enter", "ctrl+j", "alt+enter"), key.WithHelp("shift+enter/ctrl+j", "newline (also alt+enter, or \\ then enter)")),
		Tab:           key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "complete · queue while busy")),
		Esc:           key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "interrupt · clear input · deny/close a dialog")),
		CtrlC:         key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "interrupt · clear · twice quits")),
		Up:            key.NewBinding(key.WithKeys("up"), key.WithHelp("↑/↓", "input history")),
		Down:          key.NewBinding(key.WithKeys("down")),
		PageUp:        key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup/pgdn", "scroll transcript")),
		PageDown:      key.NewBinding(key.WithKeys("pgdown")),
		ToggleThought: key.NewBinding(key.WithKeys("ctrl+o"), key.WithHelp("ctrl+o", "show/hide reasoning")),
		ToggleMouse:   key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "mouse on/off (on: a drag copies; off: the terminal selects)")),
		Pager:         key.NewBinding(key.WithKeys("ctrl+t"), key.WithHelp("ctrl+t", "pager: full transcript, tool output and diffs (/ n N g G y c q)")),
		FocusLane:     key.NewBinding(key.WithKeys("ctrl+up", "ctrl+down"), key.WithHelp("ctrl+↑/↓", "focus a running tool · x stops only it · esc unfocus")),
		Approvals:     key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "approvals: ask → auto-edit → read-only")),
		PasteImage:    key.NewBinding(key.WithKeys("ctrl+v"), key.WithHelp("ctrl+v", "attach the clipboard's image")),
	}
}

// help returns the bindings in the order /help lists them.
func (k keyMap) help() []key.Binding {
	return []key.Binding{k.Send, k.Newline, k.Tab, k.Esc, k.CtrlC, k.Up, k.PageUp, k.ToggleThought, k.ToggleMouse, k.Pager, k.FocusLane, k.Approvals, k.PasteImage}
}

// handleKey routes a key press, then hands the composer's after-key work
// (history to save, the file list to start) to the root.
func (m *Model) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	msg = m.comp.typeahead(msg, m.clock())
	if msg.String() == "enter" && !m.modalOpen() && m.pager == nil {
		m.scrollToEnd() // what Enter sends, and a command's output, show at the bottom
	}
	cmd := m.routeKey(msg)
	return tea.Batch(cmd, m.doComposer(m.comp.afterKey(m.composerEnv())))
}

// routeKey routes a key press: to the pager or the open modal, else the
// screen's own bindings, the composer otherwise (model_composer.go). The
// composer's reverse search takes every key while it is open.
func (m *Model) routeKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	if !key.Matches(msg, k.CtrlC) {
		m.ui.lastCtrlC = time.Time{}
	}
	if m.pager != nil && m.pager.overModal {
		return m.pagerKey(msg) // opened from a dialog, over it
	}
	if m.modalOpen() {
		return m.handleModalKey(msg)
	}
	if m.pager != nil {
		return m.pagerKey(msg)
	}
	if cmd, ok := m.laneKey(msg); ok {
		return cmd
	}
	if m.comp.captures() {
		return m.composerKey(msg)
	}
	switch {
	case key.Matches(msg, k.CtrlC):
		return m.handleCtrlC()
	case key.Matches(msg, k.Esc):
		return m.handleEscKey()
	case msg.String() == "alt+esc": // Esc Esc typed fast arrives as one key
		return m.handleEscEsc()
	case key.Matches(msg, k.PageUp), key.Matches(msg, k.PageDown):
		return m.handlePage(key.Matches(msg, k.PageUp))
	case key.Matches(msg, k.ToggleThought):
		return m.toggleReasoning()
	case key.Matches(msg, k.ToggleMouse):
		return m.toggleMouse()
	case key.Matches(msg, k.Approvals):
		return m.cycleApprovals()
	}
	return m.composerKey(msg)
}

// handlePage scrolls the transcript by a page.
func (m *Model) handlePage(up bool) tea.Cmd {
	n := max(1, m.tr.height-2)
	if up {
		m.tr.scrollUp(n, m.renderCtx())
	} else {
		m.tr.scrollDown(n, m.renderCtx())
	}
	m.trDirty, m.chromeDirty = true, true
	return nil
}

// handleWheel scrolls the transcript with the mouse wheel.
func (m *Model) handleWheel(msg tea.MouseWheelMsg) tea.Cmd {
	const step = 3
	switch msg.Button {
	case tea.MouseWheelUp:
		m.tr.scrollUp(step, m.renderCtx())
	case tea.MouseWheelDown:
		m.tr.scrollDown(step, m.renderCtx())
	default:
		return nil
	}
	m.trDirty, m.chromeDirty = true, true
	return nil
}

// toggleReasoning expands or collapses every reasoning block.
func (m *Model) toggleReasoning() tea.Cmd {
	m.ui.showReasoning = !m.ui.showReasoning
	m.look.gen++
	m.trDirty = true
	return nil
}

// toggleMouse turns mouse capture off (so the terminal can select text)
// or back on (wheel scrolling).
func (m *Model) toggleMouse() tea.Cmd {
	m.ui.mouse = !m.ui.mouse
	m.chromeDirty = true
	if m.ui.mouse {
		return m.setHint("mouse capture on: wheel scrolls, a drag selects and copies", 3*time.Second)
	}
	return m.setHint("mouse capture off: select text freely · ctrl+s turns it back on", 4*time.Second)
}

// handlePaste gives a paste to the open modal, else to the composer.
func (m *Model) handlePaste(text string) tea.Cmd {
	if m.modalOpen() {
		return m.modalPaste(text)
	}
	return m.doComposer(m.comp.paste(text, m.composerEnv()))
}
