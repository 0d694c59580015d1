package ui

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
)

// quitWindow is how close two Ctrl+C presses must be to quit.
const quitWindow = 2 * time.Second

// turnState is the control state of the turn in progress. The screen
// learns that a turn ended from turn.finished alone.
type turnState struct {
	busy         bool // a turn runs (set before Start is called)
	awaitingEcho bool // the next turn.started echoes input we already show
	number       int  // the current turn, from turn.started
	floor        int  // events of turns before this one are stale
	started      time.Time

	pendingSteers []steerEntry // steers not yet delivered
	steerSeq      int          // tags the screen's own steers until their id is known
	delivered     map[int]bool // ids of this turn's delivered steers
	queue         []string     // messages to send after this turn
	next          string       // pending_steer handed back by turn.finished
}

// steerEntry is a steer shown as pending. id is the agent's; a steer the
// screen sent has id 0 until the agent's answer (steerAckMsg) names it.
type steerEntry struct {
	id    int
	local int // the screen's tag, 0 for a steer learnt from steer.queued
	text  string
}

// turnFailedMsg reports that Agent.Start refused or failed: no turn began.
type turnFailedMsg struct{ err error }

// steerAckMsg tells the id the agent gave to the screen's steer local.
type steerAckMsg struct{ local, id int }

// submit handles Enter: a slash command, a new turn, or busy input.
func (m *Model) submit() tea.Cmd {
	m.chromeDirty = true
	if m.comp.ed.continueLine() {
		return nil
	}
	if cmd, ok := m.acceptCompletion(); ok {
		return cmd
	}
	text := m.comp.expanded()
	if strings.TrimSpace(text) == "" {
		return nil
	}
	if name, args, ok := parseCommand(text); ok {
		m.comp.commit(text)
		return m.runCommand(name, args)
	}
	m.comp.commit(text)
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

// startTurn shows the user message and runs a turn for it. Busy is set
// here, before the command runs, so a fast second Enter cannot start a
// second turn. While a command that replaces or compresses the session
// runs, the text is queued instead: the turn would run on the agent being
// replaced, or be refused by the one compressing.
func (m *Model) startTurn(text string) tea.Cmd {
	if m.pending != "" {
		m.turn.queue = append(m.turn.queue, text)
		m.chromeDirty = true
		return m.setHint("queued: /"+m.pending+" is still running", 3*time.Second)
	}
	if cmd, ok := m.setupBeforeTurn(text); ok { // no provider yet: setup_dialog.go
		return cmd
	}
	m.addUser(userText(text, m.comp.sentImages), false)
	if m.agent == nil {
		m.notice(noticeError, "No agent is configured, so nothing was sent.")
		return nil
	}
	m.turn.busy, m.turn.awaitingEcho = true, true
	if m.turn.number > 0 {
		m.turn.floor = m.turn.number + 1 // a late event of the last turn is not this one's
	}
	m.turn.started = m.clock()
	m.ui.now = m.turn.started
	m.beginLive()
	m.chromeDirty = true
	return tea.Batch(m.startInput(m.comp.withAttachments(text)), m.ensureTicking())
}

// startTurn calls Agent.Start in a command goroutine. The turn then speaks
// only through events; the command reports only a turn that never began.
func startTurn(ctx context.Context, agent Agent, text string) tea.Cmd {
	return func() tea.Msg {
		if err := agent.Start(ctx, text); err != nil {
			return turnFailedMsg{err: err}
		}
		return nil
	}
}

// handleTurnFailed returns to idle after a turn that did not start.
func (m *Model) handleTurnFailed(msg turnFailedMsg) tea.Cmd {
	if !m.turn.busy {
		return nil
	}
	if !errors.Is(msg.err, context.Canceled) {
		m.notice(noticeError, "The turn did not start: "+msg.err.Error())
	}
	return m.finishTurn()
}

// steer injects text into the running turn. It shows as pending at once;
// the agent's answer gives it the id that steer.queued and
// steer.delivered name it by.
func (m *Model) steer(text string) tea.Cmd {
	m.turn.steerSeq++
	local := m.turn.steerSeq
	m.turn.pendingSteers = append(m.turn.pendingSteers, steerEntry{local: local, text: text})
	m.chromeDirty = true
	agent := m.agent
	return func() tea.Msg { return steerAckMsg{local: local, id: agent.Steer(text)} }
}

// handleSteerAck names the screen's steer by the agent's id. When
// steer.queued (or steer.delivered) for that id came first, the entry is
// a duplicate (or done) and goes.
func (m *Model) handleSteerAck(msg steerAckMsg) tea.Cmd {
	i := slices.IndexFunc(m.turn.pendingSteers, func(e steerEntry) bool { return e.local == msg.local })
	if i < 0 {
		return nil
	}
	known := slices.ContainsFunc(m.turn.pendingSteers, func(e steerEntry) bool { return e.id == msg.id })
	if msg.id == 0 || known || m.turn.delivered[msg.id] {
		m.turn.pendingSteers = slices.Delete(m.turn.pendingSteers, i, i+1)
	} else {
		m.turn.pendingSteers[i].id = msg.id
	}
	m.chromeDirty = true
	return nil
}

// enqueue keeps text to send as the next turn.
func (m *Model) enqueue(text string) tea.Cmd {
	m.turn.queue = append(m.turn.queue, text)
	m.chromeDirty = true
	return nil
}

// interrupt asks the agent to stop the running turn. The call runs in a
// command: the agent may emit an event from inside it, and the channel it
// fills is drained by this goroutine.
func (m *Model) interrupt() tea.Cmd {
	if m.agent == nil || !m.turn.busy {
		return nil
	}
	agent := m.agent
	return func() tea.Msg { agent.Interrupt(); return nil }
}

// finishTurn returns to idle and sends what waits: the pending steer the
// turn handed back first, then the queue.
func (m *Model) finishTurn() tea.Cmd {
	m.turn.busy, m.turn.awaitingEcho = false, false
	m.turn.pendingSteers, m.turn.delivered = nil, nil
	m.clearInterruptHint()
	m.endLive()
	m.chromeDirty = true
	return m.sendNext()
}

// sendNext sends, when idle, what waits: the pending steer the last turn
// handed back first, then the queue. While a session command runs it
// waits for its result.
func (m *Model) sendNext() tea.Cmd {
	if m.turn.busy || m.pending != "" {
		return nil
	}
	next := m.turn.next
	m.turn.next = ""
	if next == "" && len(m.turn.queue) > 0 {
		next, m.turn.queue = m.turn.queue[0], m.turn.queue[1:]
	}
	if next == "" {
		return nil
	}
	if name, args, ok := parseCommand(next); ok {
		return m.runCommand(name, args) // a command queued with Tab
	}
	return m.startTurn(next)
}

// handleCtrlC interrupts a running turn or clears the input; a second
// press within two seconds quits.
func (m *Model) handleCtrlC() tea.Cmd {
	now := m.clock()
	if !m.ui.lastCtrlC.IsZero() && now.Sub(m.ui.lastCtrlC) <= quitWindow {
		return m.quit()
	}
	m.ui.lastCtrlC = now
	if m.turn.busy {
		return tea.Batch(m.interrupt(), m.setHint("interrupting · ctrl+c again to quit", quitWindow))
	}
	m.comp.discard()
	m.chromeDirty = true
	return m.setHint("ctrl+c again to quit", quitWindow)
}

// handleEsc closes the completion popup, interrupts a running turn, or
// clears the input.
func (m *Model) handleEsc() tea.Cmd {
	switch {
	case m.popupOpen():
		m.ui.popupClosed = true
	case m.turn.busy:
		return tea.Batch(m.interrupt(), m.setHint("interrupting…", 2*time.Second))
	default:
		m.comp.discard()
	}
	m.chromeDirty = true
	return nil
}

// quit stops a running turn and ends the program.
func (m *Model) quit() tea.Cmd {
	cmd := m.interrupt()
	m.cancel()
	return tea.Batch(cmd, tea.Quit)
}
