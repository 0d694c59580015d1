package ui

import (
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

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

// handleModalKey routes a key while a question or the picker is open:
// Ctrl+C dismisses every modal (and interrupts a running turn), the two
// toggles keep working, everything else goes to the modal on top.
func (m *Model) handleModalKey(msg tea.KeyPressMsg) tea.Cmd {
	switch k := m.keys; {
	case key.Matches(msg, k.CtrlC):
		return m.modalCtrlC()
	case key.Matches(msg, k.ToggleThought):
		return m.toggleReasoning()
	case key.Matches(msg, k.ToggleMouse):
		return m.toggleMouse()
	case key.Matches(msg, k.Pager) && m.dialog() != nil:
		cmd := m.openPager()
		m.pager.overModal = true // q brings the question back
		return cmd
	}
	if m.dialog() != nil {
		return m.dialogKey(msg)
	}
	if m.rw.open() {
		return m.rewindKey(msg)
	}
	return m.pickerKey(msg)
}

// modalCtrlC denies or dismisses every question waiting and closes the
// picker; a running turn is interrupted as usual, and a second Ctrl+C
// within the window quits.
func (m *Model) modalCtrlC() tea.Cmd {
	cmd := m.dismissAll()
	if m.turn.busy {
		return tea.Batch(cmd, m.handleCtrlC())
	}
	m.ui.lastCtrlC = m.clock()
	return tea.Batch(cmd, m.setHint("ctrl+c again to quit", quitWindow))
}

// dialogKey passes a key to the question on screen (after the diff
// preview's own keys) and does what it asks.
func (m *Model) dialogKey(msg tea.KeyPressMsg) tea.Cmd {
	if !m.modal.typing {
		if cmd, ok := m.diffKey(msg); ok {
			return cmd
		}
	}
	return m.doDialog(m.modal.key(m.boxEnv(), msg, m.clock()))
}

// doDialog carries out what a key in a question asked.
func (m *Model) doDialog(in dialogIntent) tea.Cmd {
	m.mark(in.dirty)
	switch in.kind {
	case dialogPage:
		return m.handlePage(in.pageUp)
	case dialogAnswered:
		if o := in.remembered; o != nil {
			m.notice(noticeMuted, rememberedNote(*o, in.saved))
		}
		cmd := m.answer(in.answer)
		if in.trust {
			return tea.Batch(cmd, m.trustProject())
		}
		return cmd
	}
	return nil
}

// dismiss answers Esc: an approval is denied without a reason, a question
// gets no answer.
func (m *Model) dismiss() tea.Cmd { return m.doDialog(dismissed()) }

// modalPaste puts pasted text, on one line, into the open text input or
// the picker's filter (which searches for it).
func (m *Model) modalPaste(text string) tea.Cmd {
	text = strings.Join(strings.Fields(text), " ")
	switch {
	case m.dialog() != nil && m.modal.typing:
		m.modal.input.insert(text)
		m.inputDirty = true
	case m.dialog() == nil && m.modal.picker != nil:
		m.modal.picker.filter.insert(text)
		return m.pickerFiltered()
	}
	return nil
}

// moveOption moves the question's highlight, wrapping around (tab in the
// diff preview).
func (m *Model) moveOption(up bool, n int) {
	m.modal.moveOption(up, n)
	m.chromeDirty = true
}

// The question queue's lifecycle: showing, arming and answering the
// question on top start commands (the reply, a notification, the diff
// preview, the frame tick), so they are the root's.

// modalOpen reports whether a question or the picker takes the keys.
func (m *Model) modalOpen() bool {
	return len(m.modal.queue) > 0 || m.modal.picker != nil || m.rw.open()
}

// dialog returns the question on screen, or nil.
func (m *Model) dialog() *dialogRequest { return m.modal.current() }

// handleDialog queues a request (showing it when nothing else is), starts
// watching for its caller to give up, and re-arms the wait.
func (m *Model) handleDialog(msg dialogMsg) tea.Cmd {
	m.modal.queue = append(m.modal.queue, msg.req)
	var show tea.Cmd
	if len(m.modal.queue) == 1 {
		show = m.showDialog()
	}
	m.chromeDirty = true
	return tea.Batch(watchDialog(msg.req), waitDialogs(msg.from), show, previewDiff(msg.req, m.ses.cwd), m.notifyDialog(msg.req))
}

// handleDialogSettled drops a request whose caller returned without an
// answer from here (its context ended): its modal closes.
func (m *Model) handleDialogSettled(msg dialogSettledMsg) tea.Cmd {
	i := slices.Index(m.modal.queue, msg.req)
	if i < 0 {
		return nil
	}
	m.modal.queue = slices.Delete(m.modal.queue, i, i+1)
	m.chromeDirty = true
	if i == 0 {
		return m.showDialog()
	}
	return nil
}

// dialogArmDelay is how long a question takes no answer after it
// appears, so that keys typed for the composer (Enter, y, 1) just before
// it did cannot answer it.
const dialogArmDelay = 400 * time.Millisecond

// showDialog resets the controls for the question now first in line and
// starts its arming delay (the frame tick redraws it once armed). An open
// question without choices starts in its text input.
func (m *Model) showDialog() tea.Cmd {
	m.modal.sel, m.modal.typing, m.modal.save = 0, false, false
	r := m.dialog()
	m.markAwaiting(r)
	if r == nil {
		return nil
	}
	m.modal.shownAt, m.modal.armed = m.clock(), false
	if r.kind == dialogClarify && len(r.choices) == 0 {
		m.openInput()
	}
	return m.ensureTicking()
}

// dialogArmed reports whether the question on screen takes answers yet
// (see dialogArmDelay).
func (m *Model) dialogArmed() bool {
	was := m.modal.armed
	if m.modal.arm(m.clock()) != was {
		m.chromeDirty = true
	}
	return m.modal.armed
}

// openInput opens the question's text input, empty.
func (m *Model) openInput() {
	m.modal.openInput(m.width)
	m.chromeDirty = true
}

// answer replies to the question on screen and shows the next one. The
// reply is sent from a command; the channel holds it, so it never blocks.
func (m *Model) answer(a dialogAnswer) tea.Cmd {
	r := m.dialog()
	if r == nil {
		return nil
	}
	m.modal.queue = m.modal.queue[1:]
	show := m.showDialog()
	m.chromeDirty = true
	return tea.Batch(func() tea.Msg { r.reply <- a; return nil }, show)
}

// dismissAll answers every question waiting with a denial (or no answer)
// and closes the picker: what Ctrl+C does to the modals.
func (m *Model) dismissAll() tea.Cmd {
	var cmds []tea.Cmd
	for m.dialog() != nil {
		cmds = append(cmds, m.answer(dialogAnswer{decision: deny("")}))
	}
	m.closePicker()
	m.closeRewind()
	m.chromeDirty = true
	return tea.Batch(cmds...)
}
