package ui

import "charm.land/lipgloss/v2"

// The root model's side of the modal boxes (dialog_view.go): it picks the
// box on top, hands the boxes what they read of the screen (boxEnv), and
// keeps a few entry points for the boxes drawn by other files (the
// picker, /rewind, the diff preview, the trust and setup dialogs).

// boxEnv is what a modal box reads of the screen.
func (m *Model) boxEnv() *boxEnv {
	return &boxEnv{width: m.width, high: m.high, st: &m.look.st, theme: &m.look.theme}
}

// renderBox draws what sits above the status line: the composer, or the
// open modal in its place (a question before the picker).
func (m *Model) renderBox() string {
	m.modal.cursorOK = false
	env := m.boxEnv()
	switch r := m.dialog(); {
	case r != nil && r.kind == dialogApproval && r.hasDiff():
		return m.modalBox(approvalStyle(env, r), m.diffParts(r, m.approvalEnd(r, env.innerWidth())), &m.modal.input)
	case r != nil && r.kind == dialogApproval:
		return m.modalBox(approvalStyle(env, r), m.modal.approvalParts(env, r), &m.modal.input)
	case r != nil && r.kind == dialogTrust:
		return m.modalBox(m.look.st.Composer, m.trustParts(r), &m.modal.input)
	case r != nil:
		return m.modalBox(m.look.st.Composer, m.modal.clarifyParts(env, r), &m.modal.input)
	case m.rw.open():
		return m.rewindBox()
	case m.modal.picker != nil:
		return m.modalBox(m.look.st.Composer, m.pickerParts(), &m.modal.picker.filter)
	}
	return m.comp.box(&m.look.st, m.turn.busy, m.width)
}

// modalBox fits the parts to the screen and frames them (see
// modalState.box).
func (m *Model) modalBox(style lipgloss.Style, parts []boxPart, ed *editor) string {
	return m.modal.box(m.boxEnv(), style, parts, ed)
}

// approvalEnd is the end of an approval box; one with a diff gets the
// diff's key hints.
func (m *Model) approvalEnd(r *dialogRequest, w int) []boxPart {
	end := m.modal.approvalEnd(m.boxEnv(), r, w)
	if r.hasDiff() && !m.modal.typing {
		end[len(end)-1] = m.diffFooter()
	}
	return end
}

// innerWidth is the width inside a modal box's border and padding.
func (m *Model) innerWidth() int { return m.boxEnv().innerWidth() }

// waitingNote says how many more questions wait behind this one.
func (m *Model) waitingNote() string { return m.modal.waitingNote(m.boxEnv()) }

// footer is a box's key hint line (see modalState.footer).
func (m *Model) footer(text string) boxPart { return m.modal.footer(m.boxEnv(), text) }

// optionLines draws a box's options (see modalState.optionLines).
func (m *Model) optionLines(opts []dialogOption, w int) []string {
	return m.modal.optionLines(m.boxEnv(), opts, w)
}

// inputPart draws a text input after its prompt (see inputPart).
func (m *Model) inputPart(ed editor, prompt, placeholder string) boxPart {
	return inputPart(m.boxEnv(), ed, prompt, placeholder)
}
