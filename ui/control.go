package ui

import (
	"context"
	"errors"
	"slices"
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

	pendingSteers []steerEntry // steers the agent queued (steer.queued), not yet delivered
	sending       []steerEntry // the screen's steers the agent has not queued yet
	steerSeq      int          // numbers the entries of sending
	delivered     map[int]bool // ids of this turn's delivered steers
	queue         []string     // messages to send after this turn
	next          string       // pending_steer handed back by turn.finished
}

// steerEntry is a steer on screen: a pending one has the id steer.queued
// gave it (0 from an agent that numbers none); one being sent has its
// local number instead.
type steerEntry struct {
	id    int
	local int
	text  string
}

// turnFailedMsg reports that Agent.Start refused or failed: no turn began.
type turnFailedMsg struct{ err error }

// steerRefusedMsg says that Agent.Steer took none of the screen's steer
// local (it answered id 0): it will never be queued.
type steerRefusedMsg struct{ local int }

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
	m.addUser(m.comp.shownText(text), false)
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
	return tea.Batch(m.startInput(m.comp.takeInput(text)), m.ensureTicking())
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

// steer injects text into the running turn. Until the agent's
// steer.queued event says it took the steer (the one signal that it is
// pending), the pane shows it as being sent; a refusal (id 0) drops it.
func (m *Model) steer(text string) tea.Cmd {
	m.turn.steerSeq++
	local := m.turn.steerSeq
	m.turn.sending = append(m.turn.sending, steerEntry{local: local, text: text})
	m.chromeDirty = true
	agent := m.agent
	return func() tea.Msg {
		if agent.Steer(text) == 0 {
			return steerRefusedMsg{local: local}
		}
		return nil
	}
}

// handleSteerRefused drops a steer the agent did not take.
func (m *Model) handleSteerRefused(msg steerRefusedMsg) tea.Cmd {
	m.turn.sending = slices.DeleteFunc(m.turn.sending, func(e steerEntry) bool { return e.local == msg.local })
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
	m.turn.pendingSteers, m.turn.sending, m.turn.delivered = nil, nil, nil
	m.clearInterruptHint()
	m.mark(m.live.end(m.tr))
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
		m.comp.closePopup()
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
