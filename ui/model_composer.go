package ui

import (
	"errors"
	"time"

	tea "charm.land/bubbletea/v2"

	"talaria/loop"
)

// The root model's side of the composer (composer*.go, complete.go,
// history.go, attach_*.go, editor_external.go): it hands the composer
// keys, pastes and the results of its background work with what it reads
// of the screen (composerEnv), and carries out the intents it returns:
// sending through the port, running a command, queueing, quitting,
// notices, hints, saving the input history.

// composerEnv is what the composer reads of the screen and the session.
func (m *Model) composerEnv() *composerEnv {
	env := &composerEnv{
		width: m.width, st: &m.look.st, keys: &m.keys, ctx: m.ctx,
		cwd: or(m.ses.cwd, m.opts.Cwd), model: m.ses.model,
		busy: m.turn.busy || m.pending != "", term: m.term,
	}
	if m.can.Extensions {
		env.customs = m.agent.CustomCommands
	}
	return env
}

// composerKey passes a key to the composer and does what it asks.
func (m *Model) composerKey(msg tea.KeyPressMsg) tea.Cmd {
	return m.doComposer(m.comp.key(msg, m.composerEnv()))
}

// popupOpen reports whether the composer's completion popup shows.
func (m *Model) popupOpen() bool { return m.comp.popupOpen(m.composerEnv()) }

// renderPopup draws the completion list (or the reverse search prompt)
// in the rows above the composer the panes leave; nothing while a modal
// is open.
func (m *Model) renderPopup() string {
	if m.modalOpen() {
		return ""
	}
	return m.comp.popupView(m.composerEnv(), m.high-1-lineCount(m.composerView)-lineCount(m.panesView))
}

// doComposer carries out what the composer asked.
func (m *Model) doComposer(in composerIntent) tea.Cmd {
	m.mark(in.dirty)
	for _, n := range in.notes {
		m.notice(n.kind, n.text)
	}
	cmds := []tea.Cmd{in.cmd}
	if in.err != nil {
		cmds = append(cmds, m.reportErr(in.errWhat, in.err))
	}
	if in.hint != "" {
		cmds = append(cmds, m.setHint(in.hint, in.hintFor))
	}
	if len(in.save) > 0 {
		cmds = append(cmds, m.saveInput(in.save))
	}
	switch in.kind {
	case composerSend:
		cmds = append(cmds, m.send(in.text))
	case composerCommand:
		cmds = append(cmds, m.runCommand(in.text, in.args))
	case composerQueue:
		cmds = append(cmds, m.enqueue(in.text), m.setHint("queued for the next turn", 2*time.Second))
	case composerQuit:
		cmds = append(cmds, m.quit())
	}
	return tea.Batch(cmds...)
}

// send sends a message the composer gave up: a new turn when idle;
// while a turn runs, what BusyInputMode says (steer by default).
func (m *Model) send(text string) tea.Cmd {
	if !m.turn.busy {
		return m.startTurn(text)
	}
	switch m.opts.BusyInputMode {
	case BusyQueue:
		return m.enqueue(text)
	case BusyInterrupt:
		m.turn.queue = append([]string{text}, m.turn.queue...)
		m.chromeDirty = true
		return tea.Batch(m.interrupt(), m.setHint("interrupting: your message is sent next", 3*time.Second))
	default:
		return m.steer(text)
	}
}

// startInput starts a turn for in through the port: text alone, or with
// images where the port takes them.
func (m *Model) startInput(in loop.Input) tea.Cmd {
	if len(in.Images) == 0 {
		return startTurn(m.ctx, m.agent, in.Text)
	}
	ctx, agent, ok := m.ctx, m.agent, m.can.Images
	return func() tea.Msg {
		if !ok {
			return turnFailedMsg{err: errors.New("this agent takes no images")}
		}
		if err := agent.StartInput(ctx, in); err != nil {
			return turnFailedMsg{err: err}
		}
		return nil
	}
}

// saveInput saves input history entries through the port (in a command:
// the store is I/O); a port that keeps no history drops them.
func (m *Model) saveInput(texts []string) tea.Cmd {
	if !m.can.SaveInput {
		return nil
	}
	save := m.agent.SaveInput
	return func() tea.Msg {
		for _, t := range texts {
			if err := save(t); err != nil {
				return commandResultMsg{apply: func(m *Model) tea.Cmd { return m.reportErr("saving the input history", err) }}
			}
		}
		return nil
	}
}
