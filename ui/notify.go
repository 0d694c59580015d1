package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
)

// The occasions a notification is sent on (notifications.when), also the
// type field of the notify command's JSON.
const (
	NotifyTurnEnd  = "turn_end"
	NotifyApproval = "approval"
	NotifyClarify  = "clarify"
)

// The values of notifications.mode.
const (
	NotifyUnfocused = "unfocused"
	NotifyAlways    = "always"
	NotifyNever     = "never"
)

// Limits of a notification: its text, and the notify command's run.
const (
	notifyMaxText    = 200
	notifyCmdTimeout = 10 * time.Second
	notifyMaxRunning = 2
)

// NotifyOptions configure desktop notifications (the notifications
// section of config.yaml).
type NotifyOptions struct {
	// When lists the occasions (NotifyTurnEnd, NotifyApproval,
	// NotifyClarify); empty means all three.
	When []string
	// Mode is NotifyUnfocused (default: only while the terminal reports
	// it is not focused, or always when it never reports focus),
	// NotifyAlways or NotifyNever.
	Mode string
	// MinSeconds is how long a turn must run for its end to notify
	// (config default 10).
	MinSeconds int
	// Command, when set, runs (program and arguments) with one more
	// argument: a JSON object {type, session_id, cwd, last_message}.
	Command []string
}

// focusState is what the terminal said about its focus.
type focusState struct {
	known   bool // a focus or blur report arrived: the terminal reports focus
	focused bool
	running int // notify commands still running
}

// minTurn is how long a turn runs before its end notifies.
func (o NotifyOptions) minTurn() time.Duration {
	return time.Duration(max(0, o.MinSeconds)) * time.Second
}

// wantsNotify reports whether occasion kind notifies now.
func (m *Model) wantsNotify(kind string) bool {
	o := m.opts.Notify
	if len(o.When) > 0 && !slices.Contains(o.When, kind) {
		return false
	}
	switch o.Mode {
	case NotifyNever:
		return false
	case NotifyAlways:
		return true
	}
	return !m.focus.known || !m.focus.focused
}

// notify sends a notification of kind with text: the terminal escapes
// (OSC 9, OSC 777 and BEL) and the notify command.
func (m *Model) notify(kind, text string) tea.Cmd {
	if !m.wantsNotify(kind) {
		return nil
	}
	text = notifyText(text)
	cmds := []tea.Cmd{tea.Raw(m.term.notifyEscapes(text))}
	if c := m.opts.Notify.Command; len(c) > 0 && m.focus.running < notifyMaxRunning {
		m.focus.running++
		cmds = append(cmds, runNotifyCommand(c, notifyPayload{Type: kind, SessionID: m.ses.id, Cwd: m.ses.cwd, LastMessage: text}))
	}
	return tea.Batch(cmds...)
}

// notifyText makes text safe inside an OSC: one line, no control
// characters, no ";" (OSC 777's separator), capped.
func notifyText(s string) string {
	s = strings.ReplaceAll(oneLine(s), ";", ",")
	if r := []rune(s); len(r) > notifyMaxText {
		s = string(r[:notifyMaxText-1]) + "…"
	}
	return s
}

// notifyEscapes are the escapes of one notification: OSC 9 (iTerm2,
// WezTerm, Ghostty, kitty…), OSC 777 (urxvt, foot, Konsole, Ghostty…),
// each through the multiplexer's passthrough, then BEL (which tmux and
// screen turn into their own bell).
func (e termEnv) notifyEscapes(text string) string {
	osc9 := "\x1b]9;" + text + "\x07"
	osc777 := "\x1b]777;notify;talaria;" + text + "\x07"
	return e.passthrough(osc9) + e.passthrough(osc777) + "\a"
}

// notifyPayload is the notify command's JSON argument, like Codex's
// notify.
type notifyPayload struct {
	Type        string `json:"type"`
	SessionID   string `json:"session_id"`
	Cwd         string `json:"cwd"`
	LastMessage string `json:"last_message"`
}

// notifyDoneMsg reports a notify command that failed (err) or finished.
type notifyDoneMsg struct{ err error }

// runNotifyCommand runs the notify command in a command goroutine, with
// a bounded time; its output is dropped.
func runNotifyCommand(argv []string, p notifyPayload) tea.Cmd {
	return func() tea.Msg {
		data, err := json.Marshal(p)
		if err != nil {
			return notifyDoneMsg{err: err}
		}
		ctx, cancel := context.WithTimeout(context.Background(), notifyCmdTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, argv[0], append(slices.Clone(argv[1:]), string(data))...)
		cmd.WaitDelay = time.Second
		if out, err := cmd.CombinedOutput(); err != nil {
			return notifyDoneMsg{err: fmt.Errorf("%v %s", err, firstLine(string(out), 120))}
		}
		return notifyDoneMsg{}
	}
}

// handleNotifyDone counts a notify command done; a failure is said once
// as a hint.
func (m *Model) handleNotifyDone(msg notifyDoneMsg) tea.Cmd {
	m.focus.running = max(0, m.focus.running-1)
	if msg.err != nil {
		return m.setHint("notifications.command failed: "+strings.TrimSpace(msg.err.Error()), 4*time.Second)
	}
	return nil
}

// notifyTurnEnd notifies the end of a turn that ran long enough.
func (m *Model) notifyTurnEnd(ran time.Duration, answer string) tea.Cmd {
	if ran < m.opts.Notify.minTurn() {
		return nil
	}
	text := "turn finished"
	if a := strings.TrimSpace(answer); a != "" {
		text = a
	}
	return m.notify(NotifyTurnEnd, text)
}

// notifyDialog notifies a question that waits for the user.
func (m *Model) notifyDialog(r *dialogRequest) tea.Cmd {
	if r.kind == dialogApproval {
		return m.notify(NotifyApproval, "approve "+or(r.approval.Summary, r.approval.Tool)+"?")
	}
	return m.notify(NotifyClarify, "question: "+r.question)
}
