package ui

import (
	"fmt"
	"strings"

	"time"

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

// dialogIntentKind says what a key in a question asks of the screen.
type dialogIntentKind uint8

const (
	dialogStay     dialogIntentKind = iota
	dialogAnswered                  // reply answer to the question on screen
	dialogPage                      // scroll the transcript (pgup, pgdown)
)

// dialogIntent is what a key in a question asks of the screen: the
// answer to send (and whether it also trusts the project, or is a "don't
// ask again" whose note the transcript gets), or a page of the
// transcript; and what it made stale.
type dialogIntent struct {
	kind   dialogIntentKind
	answer dialogAnswer
	trust  bool
	// remembered is the "don't ask again" option chosen, saved whether
	// its rule is also saved.
	remembered *dialogOption
	saved      bool
	pageUp     bool
	dirty      dirty
}

// dismissed answers Esc: an approval is denied without a reason, a
// question gets no answer.
func dismissed() dialogIntent {
	return dialogIntent{kind: dialogAnswered, answer: dialogAnswer{decision: deny("")}}
}

// key handles a key for the question on screen. Keys that answer it
// (Enter, an option's number or letter) do nothing until it is armed (see
// dialogArmDelay); Esc, which only denies or skips, always works.
func (d *modalState) key(env *boxEnv, msg tea.KeyPressMsg, now time.Time) dialogIntent {
	was := d.armed
	in := d.keyArmed(env, msg, now)
	if d.armed != was {
		in.dirty |= dirtyChrome
	}
	return in
}

func (d *modalState) keyArmed(env *boxEnv, msg tea.KeyPressMsg, now time.Time) dialogIntent {
	if d.typing {
		return d.inputKey(msg, now)
	}
	opts := dialogOptions(d.current())
	switch k := msg.String(); k {
	case "esc":
		return dismissed()
	case "enter":
		if !d.arm(now) {
			return dialogIntent{}
		}
		return d.choose(env, opts[min(d.sel, len(opts)-1)])
	case "up", "down", "ctrl+p", "ctrl+n":
		d.moveOption(k == "up" || k == "ctrl+p", len(opts))
		return dialogIntent{dirty: dirtyChrome}
	case "pgup", "pgdown":
		return dialogIntent{kind: dialogPage, pageUp: k == "pgup"}
	case "s":
		if canSave(opts) {
			d.save = !d.save // the "don't ask again" answers also save their rule, or stop
			return dialogIntent{dirty: dirtyChrome}
		}
	}
	if i := optionIndex(opts, msg.Text); i >= 0 && d.arm(now) {
		return d.choose(env, opts[i])
	}
	return dialogIntent{}
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
func (d *modalState) moveOption(up bool, n int) {
	if up {
		d.sel = (d.sel - 1 + n) % n
	} else {
		d.sel = (d.sel + 1) % n
	}
}

// choose acts on an option: answer, or open the text input.
func (d *modalState) choose(env *boxEnv, o dialogOption) dialogIntent {
	answer := func(a dialogAnswer) dialogIntent { return dialogIntent{kind: dialogAnswered, answer: a} }
	switch o.act {
	case actAllowOnce:
		return answer(dialogAnswer{decision: tools.ApprovalDecision{Allow: true, Scope: tools.ScopeOnce}})
	case actAllowSession:
		return answer(dialogAnswer{decision: tools.ApprovalDecision{Allow: true, Scope: tools.ScopeSession}})
	case actRemember:
		save := d.save && o.rule != ""
		in := answer(dialogAnswer{decision: tools.ApprovalDecision{Allow: true, Scope: tools.ScopeSession, Remember: o.text, Save: save}})
		in.remembered, in.saved = &o, save
		return in
	case actChoice:
		return answer(dialogAnswer{text: o.text})
	case actTrust:
		in := answer(dialogAnswer{})
		in.trust = true
		return in
	case actNotNow:
		return dismissed()
	}
	d.openInput(env.width)
	return dialogIntent{dirty: dirtyChrome}
}

// inputKey handles a key in the question's text input.
func (d *modalState) inputKey(msg tea.KeyPressMsg, now time.Time) dialogIntent {
	switch msg.String() {
	case "enter":
		if !d.arm(now) {
			return dialogIntent{}
		}
		return d.submitInput()
	case "esc":
		return d.leaveInput()
	case "shift+enter", "ctrl+j", "tab":
		return dialogIntent{} // one line
	}
	d.input.update(msg)
	return dialogIntent{dirty: dirtyInput}
}

// submitInput sends the typed text: the reason of a denial (possibly
// empty), or an answer (ignored while empty).
func (d *modalState) submitInput() dialogIntent {
	text := strings.TrimSpace(d.input.value())
	if d.current().kind == dialogApproval {
		return dialogIntent{kind: dialogAnswered, answer: dialogAnswer{decision: deny(text)}}
	}
	if text == "" {
		return dialogIntent{}
	}
	return dialogIntent{kind: dialogAnswered, answer: dialogAnswer{text: text}}
}

// leaveInput handles Esc in the text input: a denial goes without a
// reason, "Other" goes back to the choices, an open question is skipped.
func (d *modalState) leaveInput() dialogIntent {
	r := d.current()
	if r.kind == dialogClarify && len(r.choices) > 0 {
		d.typing = false
		return dialogIntent{dirty: dirtyChrome}
	}
	return dismissed()
}

// openInput opens the question's text input, empty, for a screen width
// wide.
func (d *modalState) openInput(width int) {
	d.typing = true
	d.input = newEditor(3)
	d.input.setWidth(modalInputWidth(width))
}

// arm reports whether the question on screen takes answers yet (see
// dialogArmDelay), arming it once the delay has passed.
func (d *modalState) arm(now time.Time) bool {
	if !d.armed && d.current() != nil && !now.Before(d.shownAt.Add(dialogArmDelay)) {
		d.armed = true
	}
	return d.armed
}

// modalInputWidth is the width of a modal's text input on a screen width
// wide: the box less its border, padding and the "› " prompt.
func modalInputWidth(width int) int { return max(4, width-6) }
