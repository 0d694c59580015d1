package ui

import (
	"context"
	"errors"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"talaria/loop"
)

// quitWindow is how close two Ctrl+C presses must be to quit.
const quitWindow = 2 * time.Second

// runGrace is how long the screen waits, after Run returned, for the
// turn.finished event still in the channel before it settles the turn.
const runGrace = 500 * time.Millisecond

// Run is retried this often, this far apart, while the agent says busy.
const (
	busyRetries    = 20
	busyRetryDelay = 50 * time.Millisecond
)

// turnState is the control state of the turn in progress.
type turnState struct {
	busy         bool // a turn runs (set before Run is called)
	runInFlight  bool // our Run call has not returned yet
	finishedSeen bool // turn.finished arrived for the running turn
	awaitingEcho bool // the next turn.started echoes input we already show
	number       int  // the current turn, from turn.started
	floor        int  // events of turns before this one are stale
	seq          int  // Run calls made; tags runDoneMsg
	started      time.Time

	pendingSteers []string // steers not yet delivered
	queue         []string // messages to send after this turn
	next          string   // pending_steer handed back by turn.finished
}

// runDoneMsg reports that Agent.Run returned.
type runDoneMsg struct {
	seq int
	err error
}

// graceMsg ends the wait for a turn.finished that never came.
type graceMsg struct{ seq int }

// submit handles Enter: a slash command, a new turn, or busy input.
func (m *Model) submit() tea.Cmd {
	m.chromeDirty = true
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
	m.addUser(text, false)
	if m.agent == nil {
		m.notice(noticeError, "No agent is configured, so nothing was sent.")
		return nil
	}
	m.turn.busy, m.turn.runInFlight, m.turn.finishedSeen = true, true, false
	m.turn.awaitingEcho = true
	if m.turn.number > 0 {
		m.turn.floor = m.turn.number + 1 // a late event of the last turn is not this one's
	}
	m.turn.seq++
	m.turn.started = m.clock()
	m.ui.now = m.turn.started
	m.beginLive()
	m.chromeDirty = true
	return tea.Batch(runTurn(m.ctx, m.agent, m.turn.seq, m.comp.withAttachments(text)), m.ensureTicking())
}

// runTurn calls Agent.Run in the command goroutine. The agent still
// reports busy for a moment after it emitted turn.finished, so ErrBusy is
// retried briefly before it counts as a failure.
func runTurn(ctx context.Context, agent Agent, seq int, text string) tea.Cmd {
	return func() tea.Msg {
		for i := 0; ; i++ {
			err := agent.Run(ctx, text)
			if !errors.Is(err, loop.ErrBusy) || i == busyRetries {
				return runDoneMsg{seq: seq, err: err}
			}
			select {
			case <-time.After(busyRetryDelay):
			case <-ctx.Done():
				return runDoneMsg{seq: seq, err: ctx.Err()}
			}
		}
	}
}

// steer injects text into the running turn.
func (m *Model) steer(text string) tea.Cmd {
	m.turn.pendingSteers = append(m.turn.pendingSteers, text)
	m.chromeDirty = true
	agent := m.agent
	return func() tea.Msg { agent.Steer(text); return nil }
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

// handleRunDone settles the turn once both Run has returned and its
// turn.finished event has been applied (or a grace period passed).
func (m *Model) handleRunDone(msg runDoneMsg) tea.Cmd {
	if msg.seq != m.turn.seq {
		return nil
	}
	m.turn.runInFlight = false
	if msg.err != nil && !errors.Is(msg.err, context.Canceled) {
		m.notice(noticeError, "The turn failed: "+msg.err.Error())
	}
	if m.turn.finishedSeen || msg.err != nil {
		return m.finishTurn()
	}
	seq := msg.seq
	return tea.Tick(runGrace, func(time.Time) tea.Msg { return graceMsg{seq: seq} })
}

// handleGrace settles a turn whose turn.finished never arrived.
func (m *Model) handleGrace(msg graceMsg) tea.Cmd {
	if msg.seq != m.turn.seq || m.turn.runInFlight || !m.turn.busy {
		return nil
	}
	return m.finishTurn()
}

// finishTurn returns to idle and sends what waits: the pending steer the
// turn handed back first, then the queue.
func (m *Model) finishTurn() tea.Cmd {
	if m.turn.runInFlight {
		return nil
	}
	m.turn.busy, m.turn.awaitingEcho = false, false
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
