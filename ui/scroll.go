package ui

// scrollToEnd makes the transcript follow its end again: a message sent,
// a command run or a new turn shows at the bottom even when the user had
// scrolled up (scrolling again stops following, as before).
func (m *Model) scrollToEnd() {
	if !m.tr.follow {
		m.tr.follow = true
		m.trDirty, m.chromeDirty = true, true
	}
}
