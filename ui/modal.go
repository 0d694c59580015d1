package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"talaria/tools"
)

// optionAct is what choosing a dialog option does.
type optionAct int

const (
	actAllowOnce optionAct = iota
	actAllowSession
	actDeny     // opens the reason input
	actChoice   // answers a clarify choice
	actOther    // opens the answer input
	actRemember // allows and remembers one of the request's Remember scopes
	actTrust    // trusts the project (trust_dialog.go)
	actNotNow   // leaves it untrusted
)

// dialogOption is one answer offered by the question on screen.
type dialogOption struct {
	label string
	key   string // letter shortcut, "" for none; every option also has its number
	act   optionAct
	text  string // the choice, for actChoice; the Remember scope, for actRemember
	// rule is the allow rule an actRemember option adds ("" when it can
	// only hold for the session).
	rule string
}

// dialogOptions lists the answers a request offers, in order. A call the
// approver will not allow for the session (NoSessionScope: destructive
// commands, edits outside the working directory) would take that answer
// as once, so that option is left out.
func dialogOptions(r *dialogRequest) []dialogOption {
	if r.kind == dialogTrust {
		return trustOptions()
	}
	if r.kind == dialogClarify {
		opts := make([]dialogOption, 0, len(r.choices)+1)
		for _, c := range r.choices {
			opts = append(opts, dialogOption{label: c, act: actChoice, text: c})
		}
		return append(opts, dialogOption{label: "Other (type your answer)", act: actOther})
	}
	opts := []dialogOption{{label: "Yes, allow once", key: "y", act: actAllowOnce}}
	switch {
	case r.approval.Destructive || r.approval.NoSessionScope:
	case len(r.approval.Remember) > 0:
		opts = append(opts, rememberOptions(r.approval)...)
	default:
		opts = append(opts, dialogOption{label: sessionLabel(r.approval), key: "a", act: actAllowSession})
	}
	return append(opts, dialogOption{label: "No, and tell the model why", key: "n", act: actDeny})
}

// sessionLabel says what "allow for this session" covers: the exact
// command for terminal, the tool otherwise.
func sessionLabel(req tools.ApprovalRequest) string {
	if req.Tool == "terminal" {
		return "Yes, and don't ask again for this command this session"
	}
	return fmt.Sprintf("Yes, and allow %s for this session", req.Tool)
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

// dialogKey handles a key for the question on screen. Keys that answer
// it (Enter, an option's number or letter) do nothing until it is armed
// (see dialogArmDelay); Esc, which only denies or skips, always works.
func (m *Model) dialogKey(msg tea.KeyPressMsg) tea.Cmd {
	if m.modal.typing {
		return m.inputKey(msg)
	}
	if cmd, ok := m.diffKey(msg); ok {
		return cmd
	}
	opts := dialogOptions(m.dialog())
	switch k := msg.String(); k {
	case "esc":
		return m.dismiss()
	case "enter":
		if !m.dialogArmed() {
			return nil
		}
		return m.choose(opts[min(m.modal.sel, len(opts)-1)])
	case "up", "down", "ctrl+p", "ctrl+n":
		m.moveOption(k == "up" || k == "ctrl+p", len(opts))
		return nil
	case "pgup", "pgdown":
		return m.handlePage(k == "pgup")
	case "s":
		if canSave(opts) {
			m.toggleSave()
			return nil
		}
	}
	if i := optionIndex(opts, msg.Text); i >= 0 && m.dialogArmed() {
		return m.choose(opts[i])
	}
	return nil
}

// optionIndex finds the option a typed character picks: its number
// (1-based) or its letter, either case.
func optionIndex(opts []dialogOption, text string) int {
	if len(text) != 1 {
		return -1
	}
	if c := text[0]; c >= '1' && c <= '9' {
		if i := int(c - '1'); i < len(opts) {
			return i
		}
		return -1
	}
	for i, o := range opts {
		if o.key != "" && strings.EqualFold(o.key, text) {
			return i
		}
	}
	return -1
}

// moveOption moves the highlight, wrapping around.
func (m *Model) moveOption(up bool, n int) {
	if up {
		m.modal.sel = (m.modal.sel - 1 + n) % n
	} else {
		m.modal.sel = (m.modal.sel + 1) % n
	}
	m.chromeDirty = true
}

// choose acts on an option: answer, or open the text input.
func (m *Model) choose(o dialogOption) tea.Cmd {
	switch o.act {
	case actAllowOnce:
		return m.answer(dialogAnswer{decision: tools.ApprovalDecision{Allow: true, Scope: tools.ScopeOnce}})
	case actAllowSession:
		return m.answer(dialogAnswer{decision: tools.ApprovalDecision{Allow: true, Scope: tools.ScopeSession}})
	case actRemember:
		save := m.modal.save && o.rule != ""
		m.noteRemembered(o, save)
		return m.answer(dialogAnswer{decision: tools.ApprovalDecision{Allow: true, Scope: tools.ScopeSession, Remember: o.text, Save: save}})
	case actChoice:
		return m.answer(dialogAnswer{text: o.text})
	case actTrust:
		return tea.Batch(m.answer(dialogAnswer{}), m.trustProject())
	case actNotNow:
		return m.dismiss()
	}
	m.openInput()
	return nil
}

// dismiss answers Esc: an approval is denied without a reason, a question
// gets no answer.
func (m *Model) dismiss() tea.Cmd { return m.answer(dialogAnswer{decision: deny("")}) }

// inputKey handles a key in the question's text input.
func (m *Model) inputKey(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "enter":
		if !m.dialogArmed() {
			return nil
		}
		return m.submitInput()
	case "esc":
		return m.leaveInput()
	case "shift+enter", "ctrl+j", "tab":
		return nil // one line
	}
	m.modal.input.update(msg)
	m.inputDirty = true
	return nil
}

// submitInput sends the typed text: the reason of a denial (possibly
// empty), or an answer (ignored while empty).
func (m *Model) submitInput() tea.Cmd {
	text := strings.TrimSpace(m.modal.input.value())
	if m.dialog().kind == dialogApproval {
		return m.answer(dialogAnswer{decision: deny(text)})
	}
	if text == "" {
		return nil
	}
	return m.answer(dialogAnswer{text: text})
}

// leaveInput handles Esc in the text input: a denial goes without a
// reason, "Other" goes back to the choices, an open question is skipped.
func (m *Model) leaveInput() tea.Cmd {
	r := m.dialog()
	if r.kind == dialogClarify && len(r.choices) > 0 {
		m.modal.typing = false
		m.chromeDirty = true
		return nil
	}
	return m.dismiss()
}

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

// modalInputWidth is the width of a modal's text input: the box less its
// border, padding and the "› " prompt.
func (m *Model) modalInputWidth() int { return max(4, m.width-6) }
