package ui

import tea "charm.land/bubbletea/v2"

// The root model's side of the pager (pager.go): it opens and closes it,
// passes it keys and what it reads of the screen, and carries out what a
// key asks (copying, a hint).

// pagerEnv is what the pager reads of the screen.
func (m *Model) pagerEnv() pagerEnv {
	return pagerEnv{width: m.width, high: m.high, st: &m.look.st, hint: m.ui.hint, now: m.ui.now}
}

// openPager snapshots the transcript into the pager (ctrl+t).
func (m *Model) openPager() tea.Cmd {
	m.pager = newPager(m.tr, m.pagerEnv())
	return nil
}

// pagerKey passes a key to the open pager and does what it asks.
func (m *Model) pagerKey(msg tea.KeyPressMsg) tea.Cmd {
	switch intent := m.pager.update(msg, m.pagerEnv()); intent {
	case pagerClose:
		m.pager = nil
		m.trDirty, m.chromeDirty = true, true
	case pagerCopyMessage, pagerCopyCode:
		text, what, miss := m.pager.copyTarget(intent == pagerCopyCode)
		if miss != "" {
			return m.setHint(miss, hintShort)
		}
		return m.copyText(text, what)
	}
	return nil
}

// pagerView is the screen while the pager is open.
func (m *Model) pagerView() tea.View {
	v := tea.NewView(m.pager.view)
	v.AltScreen = true
	v.WindowTitle = m.windowTitle()
	return v
}
