package ui

import (
	"fmt"
	"strings"
	"talaria/providers"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// View joins the cached parts of the screen and declares the terminal
// modes. It renders nothing itself.
func (m *Model) View() tea.View {
	v := tea.NewView("")
	v.AltScreen = true
	v.WindowTitle = m.windowTitle()
	v.ReportFocus = m.opts.Notify.Mode != NotifyNever
	if m.ui.mouse {
		v.MouseMode = tea.MouseModeCellMotion
	}
	if m.width == 0 || m.high == 0 {
		return v
	}
	if m.pager != nil && (!m.modalOpen() || m.pager.overModal) {
		return m.pagerView()
	}
	parts := make([]string, 0, 5)
	if m.tr.height > 0 {
		parts = append(parts, m.tr.view)
	}
	y := m.tr.height
	for _, p := range []string{m.panesView, m.popupView} {
		if p != "" {
			parts = append(parts, p)
			y += strings.Count(p, "\n") + 1
		}
	}
	parts = append(parts, m.composerView, m.statusView)
	v.SetContent(strings.Join(parts, "\n"))
	switch {
	case !m.modalOpen():
		x, cy := m.comp.cursor()
		v.Cursor = tea.NewCursor(x+2, y+1+cy) // inside the border and padding
	case m.modal.cursorOK:
		v.Cursor = tea.NewCursor(m.modal.cursorX, y+m.modal.cursorY)
	}

	return v
}

// windowTitle names the program and what it is doing.
func (m *Model) windowTitle() string {
	if m.dialog() != nil {
		return "talaria · waiting for you"
	}
	if m.turn.busy {
		return "talaria · working"
	}
	return "talaria"
}

// renderChrome rebuilds every cached part except the transcript.
func (m *Model) renderChrome() {
	if m.width == 0 {
		return
	}
	m.composerView = m.renderBox()
	m.panesView = m.live.view(m.paneEnv())
	m.popupView = m.renderPopup()
	m.statusView = m.renderStatus()
}

// renderInput rebuilds only what typing changes: the composer (or the
// modal in its place) and the completion popup.
func (m *Model) renderInput() {
	if m.width == 0 {
		return
	}
	m.composerView = m.renderBox()
	m.popupView = m.renderPopup()
}

// layout gives the transcript the rows the other parts leave. It reports
// whether the transcript's size changed.
func (m *Model) layout() bool {
	h := m.high - 1 - lineCount(m.composerView) - lineCount(m.panesView) - lineCount(m.popupView)
	w, hh := m.tr.width, m.tr.height
	m.tr.setSize(m.width, max(0, h))
	return w != m.tr.width || hh != m.tr.height
}

func lineCount(s string) int {
	if s == "" {
		return 0
	}
	return strings.Count(s, "\n") + 1
}

// renderStatus draws the status line: model (and a fallback marker),
// tokens, context use, then mouse state and the session id on the right.
// Items are dropped from the right end when the line is too narrow.
func (m *Model) renderStatus() string {
	st := m.look.st
	model := m.ses.model
	if m.ses.provider != "" {
		model = m.ses.provider + "/" + model
	}
	if model == "" {
		model = "no provider · /model picks one"
	}
	left := []string{st.StatusAccent.Render(model)}
	if c := m.containStatus(); c != "" {
		left = append(left, st.StatusWarn.Render(c))
	}
	if m.live.fallback != nil {
		left = append(left, st.StatusWarn.Render("⇄ fallback"))
	}
	if m.ui.mcpStarting != "" {
		left = append(left, st.StatusWarn.Render("mcp starting: "+m.ui.mcpStarting))
	}
	u := m.ses.usage
	u.Add(m.ses.turnUsage)
	left = append(left, st.StatusBar.Render(fmt.Sprintf("↑%s ↓%s", fmtTokens(u.InputTokens+u.CacheReadTokens+u.CacheWriteTokens), fmtTokens(u.OutputTokens))))
	if pct, ok := m.contextPercent(); ok {
		left = append(left, st.StatusBar.Render(fmt.Sprintf("ctx %d%%", pct)))
	}
	if cost, ok := providers.EstimateCost(m.ses.model, u); ok && cost > 0 {
		left = append(left, st.StatusBar.Render(fmt.Sprintf("~$%.2f", cost)))
	}
	var right []string
	if !m.ui.mouse {
		right = append(right, st.StatusWarn.Render("mouse off"))
	}
	if m.ses.id != "" {
		right = append(right, st.StatusBar.Render(m.sessionLabel()))
	}
	sep := st.Faint.Render(" · ")
	for {
		l, r := strings.Join(left, sep), strings.Join(right, sep)
		gap := m.width - ansi.StringWidth(l) - ansi.StringWidth(r)
		if gap >= 1 || (len(right) == 0 && len(left) <= 1) {
			return ansi.Truncate(l+strings.Repeat(" ", max(1, gap))+r, m.width, "…")
		}
		if len(right) > 0 {
			right = right[:len(right)-1]
		} else {
			left = left[:len(left)-1]
		}
	}
}

// contextPercent is the share of the context window the last call used.
func (m *Model) contextPercent() (int, bool) {
	if m.opts.ContextLength <= 0 || m.ses.ctxTokens <= 0 {
		return 0, false
	}
	return min(100, m.ses.ctxTokens*100/m.opts.ContextLength), true
}
