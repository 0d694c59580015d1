package ui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"talaria/loop"
	"talaria/providers"
)

// maxEventBatch bounds how many queued events one message carries.
const maxEventBatch = 512

// eventsMsg carries the events that were waiting in the channel, in order.
type eventsMsg struct {
	evs    []loop.Event
	closed bool
}

// waitEvents blocks for one event, then takes whatever else is already
// queued, so bursts of deltas cost one Update. Update re-arms it. Closing
// stop (the screen is gone) ends the wait with no message, so it does not
// leak its goroutine.
func waitEvents(ch <-chan loop.Event, stop <-chan struct{}) tea.Cmd {
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		var (
			ev loop.Event
			ok bool
		)
		select {
		case <-stop:
			return nil
		case ev, ok = <-ch:
		}
		if !ok {
			return eventsMsg{closed: true}
		}
		evs := []loop.Event{ev}
		for len(evs) < maxEventBatch {
			select {
			case ev, ok := <-ch:
				if !ok {
					return eventsMsg{evs: evs, closed: true}
				}
				evs = append(evs, ev)
			default:
				return lingerDeltas(ch, stop, evs, deltaLinger)
			}
		}
		return eventsMsg{evs: evs}
	}
}

// waitEvents waits on the event channel.
func (m *Model) waitEvents() tea.Cmd { return waitEvents(m.events, m.ctx.Done()) }

// handleEvents applies a batch and re-arms the wait.
func (m *Model) handleEvents(msg eventsMsg) tea.Cmd {
	m.ui.now = m.clock() // countdowns and elapsed times start from now
	cmds := make([]tea.Cmd, 0, 2)
	for _, ev := range msg.evs {
		if ev == nil {
			continue
		}
		cmds = append(cmds, m.applyEvent(ev))
	}
	if !msg.closed {
		cmds = append(cmds, m.waitEvents())
	}
	return tea.Batch(cmds...)
}

// applyEvent turns one event into screen state. Events of a turn older
// than the current one are dropped: the current turn is the one
// turn.started named last or, once the screen started a turn whose
// turn.started has not come yet, any turn after that one (see
// turnState.floor).
func (m *Model) applyEvent(ev loop.Event) tea.Cmd {
	if h := ev.Meta(); h.Turn != 0 && h.Turn < max(m.turn.number, m.turn.floor) {
		return nil
	}
	switch e := ev.(type) {
	case *loop.SessionStarted:
		m.onSessionStarted(e)
	case *loop.TurnStarted:
		return m.onTurnStarted(e)
	case *loop.IterationStarted:
		m.mark(m.live.iteration(e))
	case *loop.MessageDelta:
		m.mark(m.live.delta(m.tr, e.Text, false))
	case *loop.ReasoningDelta:
		m.mark(m.live.delta(m.tr, e.Text, true))
	case *loop.MessageCompleted:
		m.onMessageCompleted(e)
	case *loop.ToolsPlanned:
		m.mark(m.live.planned(m.tr, e))
	case *loop.ToolStarted:
		m.onToolStarted(e)
	case *loop.ToolCompleted:
		m.onToolCompleted(e)
	case *loop.ToolOutput:
		m.mark(m.live.toolOutput(e))
	default:
		return m.applyNotice(ev)
	}
	return nil
}

// applyNotice handles the events that mostly feed panes and notices.
func (m *Model) applyNotice(ev loop.Event) tea.Cmd {
	switch e := ev.(type) {
	case *loop.RetryScheduled:
		return m.onRetry(e)
	case *loop.CredentialRotated:
		m.notice(noticeMuted, fmt.Sprintf("credential rotated for %s (%s)", e.Provider, e.Reason))
	case *loop.FallbackActivated:
		m.onFallback(e)
	case *loop.Guardrail:
		m.onGuardrail(e)
	case *loop.SteerQueued:
		m.onSteerQueued(e)
	case *loop.SteerDelivered:
		m.onSteerDelivered(e)
	case *loop.SteerRefused:
		m.notice(noticeWarn, e.Message)
	case *loop.BudgetRefunded:
		m.live.budget.refunds++ // the gauge shows it
		m.chromeDirty = true
	case *loop.Compression:
		m.onCompression(e)
	case *loop.HookCompleted:
		m.onHookCompleted(e)
	case *loop.TurnFinished:
		return m.onTurnFinished(e)
	}
	return nil
}

func (m *Model) onSessionStarted(e *loop.SessionStarted) {
	m.ses.provider, m.ses.model, m.ses.cwd = e.Provider, e.Model, e.Cwd
	if e.SessionID != "" {
		m.ses.id = e.SessionID
	}
	m.chromeDirty = true
}

// onTurnStarted makes the turn current. A turn the screen did not start
// (or whose input it did not show) gets its user message here.
func (m *Model) onTurnStarted(e *loop.TurnStarted) tea.Cmd {
	m.turn.number = e.Turn
	if !m.turn.awaitingEcho {
		m.addUser(e.Input, false)
		m.beginLive()
		m.turn.started = e.TS.Time()
	}
	m.turn.awaitingEcho = false
	m.turn.busy = true
	m.chromeDirty = true
	if m.pollMCP() {
		m.notice(noticeWarn, "MCP servers still starting ("+m.ui.mcpStarting+"): this turn goes on without their tools")
	}
	return m.ensureTicking()
}

// onMessageCompleted closes the streamed blocks and settles the call's
// usage.
func (m *Model) onMessageCompleted(e *loop.MessageCompleted) {
	m.mark(m.live.complete(m.tr, e))
	if strings.TrimSpace(e.Content) != "" {
		m.ses.lastAnswer = e.Content
	}
	m.ses.turnUsage.Add(e.Usage)
	if n := e.Usage.InputTokens + e.Usage.CacheReadTokens + e.Usage.CacheWriteTokens; n > 0 {
		m.ses.ctxTokens = n + e.Usage.OutputTokens
	}
}

// onToolStarted marks a lane running. A call that was never planned gets
// a batch of its own.
func (m *Model) onToolStarted(e *loop.ToolStarted) {
	ref, ok := m.live.calls[e.ID]
	if !ok {
		ref = m.callFor(e.ID, e.Name, e.Arguments, e.ParentID)
	}
	c := ref.call
	c.state, c.started = toolRunning, e.TS.Time()
	if e.Arguments != "" {
		c.args = e.Arguments
	}
	ref.batch.ver++
	m.live.phase = phaseTools
	m.trDirty, m.chromeDirty = true, true
}

// onToolCompleted settles a lane.
func (m *Model) onToolCompleted(e *loop.ToolCompleted) {
	ref, ok := m.live.calls[e.ID]
	if !ok {
		ref = m.callFor(e.ID, e.Name, "", e.ParentID)
	}
	c := ref.call
	switch {
	case e.Cancelled:
		c.state = toolCancelled
	case e.Denied:
		c.state = toolDenied
	case e.OK:
		c.state = toolDone
	default:
		c.state = toolFailed
	}
	c.dur = msDuration(e.DurationMS)
	c.output, c.diff, c.diags = e.Output, e.Diff, e.Diagnostics
	if m.live.stopHintDone(m.ui.hint, c) {
		m.ui.hint = ""
		m.chromeDirty = true
	}
	m.unfocus(c)
	ref.batch.ver++
	m.trDirty, m.chromeDirty = true, true
}

// adHocCall creates a one-call batch for a call no plan announced.
func (m *Model) adHocCall(id, name, args string) callRef { return m.live.adHoc(m.tr, id, name, args) }

// onRetry shows the retry pane and keeps a line in the transcript.
func (m *Model) onRetry(e *loop.RetryScheduled) tea.Cmd {
	m.mark(m.live.retrying(e))
	m.notice(noticeMuted, fmt.Sprintf("retry %d/%d after %s", e.Attempt, e.MaxAttempts, reasonLabel(e.Reason, e.Status)))
	return m.ensureTicking()
}

func (m *Model) onFallback(e *loop.FallbackActivated) {
	to := e.To
	m.live.fallback = &to
	m.ses.provider, m.ses.model = to.Provider, to.Model
	m.notice(noticeWarn, fmt.Sprintf("fallback: %s/%s → %s/%s (%s)", e.From.Provider, e.From.Model, to.Provider, to.Model, e.Reason))
	m.chromeDirty = true
}

// onGuardrail shows the event in the pane; a halt is also written to the
// transcript.
func (m *Model) onGuardrail(e *loop.Guardrail) {
	m.mark(m.live.guardrail(e))
	if e.Action == "halt" {
		m.notice(noticeError, fmt.Sprintf("guardrail halted the turn: %s (%s ×%d)", e.Message, e.Code, e.Count))
	}
}

// onSteerQueued shows a steer the agent took as pending: the screen's
// own (its entry being sent, the first with the same text, goes) or one
// sent elsewhere. A steer delivered already (the agent may emit the
// delivery first) is not shown.
func (m *Model) onSteerQueued(e *loop.SteerQueued) {
	if i := slices.IndexFunc(m.turn.sending, func(s steerEntry) bool { return strings.TrimSpace(s.text) == e.Text }); i >= 0 {
		m.turn.sending = slices.Delete(m.turn.sending, i, i+1)
	}
	m.chromeDirty = true
	if e.ID != 0 && m.turn.delivered[e.ID] {
		return
	}
	m.turn.pendingSteers = append(m.turn.pendingSteers, steerEntry{id: e.ID, text: e.Text})
}

// onSteerDelivered moves delivered steers, named by id, from the pane to
// the transcript. The agent joins several pending steers into one delivery.
func (m *Model) onSteerDelivered(e *loop.SteerDelivered) {
	if m.turn.delivered == nil {
		m.turn.delivered = map[int]bool{}
	}
	for _, id := range e.IDs {
		m.turn.delivered[id] = true
	}
	m.turn.pendingSteers = slices.DeleteFunc(m.turn.pendingSteers, func(s steerEntry) bool { return s.id != 0 && m.turn.delivered[s.id] })
	m.addUser(e.Text, true)
	m.chromeDirty = true
}

func (m *Model) onCompression(e *loop.Compression) {
	m.ses.ctxTokens = e.TokensAfter
	m.notice(noticeMuted, fmt.Sprintf("context compressed (pass %d): %s → %s tokens",
		e.Pass, fmtTokens(e.TokensBefore), fmtTokens(e.TokensAfter)))
	m.chromeDirty = true
}

// onTurnFinished writes the turn's summary, settles usage, keeps the
// pending steer to send next and goes idle: turn.finished is the one
// signal that a turn ended.
func (m *Model) onTurnFinished(e *loop.TurnFinished) tea.Cmd {
	m.mark(m.live.closeStreams(m.tr, e.ExitReason) | m.live.settle())
	if e.FinalResponse != "" {
		m.ses.lastAnswer = e.FinalResponse
	}
	u := e.Usage
	if u.InputTokens+u.OutputTokens+u.CacheReadTokens+u.CacheWriteTokens == 0 {
		u = m.ses.turnUsage
	}
	m.ses.usage.Add(u)
	m.ses.turnUsage = providers.Usage{}
	for _, n := range turnSummary(e, m.turn.started) {
		m.notice(n.kind, n.text)
	}
	if strings.TrimSpace(e.PendingSteer) != "" {
		m.turn.next = e.PendingSteer
	}
	m.live.retry = nil
	m.chromeDirty = true
	var ran time.Duration
	if !m.turn.started.IsZero() {
		ran = e.TS.Time().Sub(m.turn.started)
	}
	return tea.Batch(m.notifyTurnEnd(ran, e.FinalResponse), m.finishTurn())
}
