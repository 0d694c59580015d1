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
		m.onIteration(e)
	case *loop.MessageDelta:
		m.onDelta(e.Text, false)
	case *loop.ReasoningDelta:
		m.onDelta(e.Text, true)
	case *loop.MessageCompleted:
		m.onMessageCompleted(e)
	case *loop.ToolsPlanned:
		m.onToolsPlanned(e)
	case *loop.ToolStarted:
		m.onToolStarted(e)
	case *loop.ToolCompleted:
		m.onToolCompleted(e)
	case *loop.ToolOutput:
		m.onToolOutput(e)
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
		m.live.budget.refunds++
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

func (m *Model) onIteration(e *loop.IterationStarted) {
	b := &m.live.budget
	b.iteration, b.used, b.max = e.Iteration, e.BudgetUsed, e.BudgetMax
	m.live.phase = phaseWaiting
	m.chromeDirty = true
}

// onDelta appends streamed text. It only marks the block dirty; the frame
// tick flushes it, so a burst of deltas renders once.
func (m *Model) onDelta(text string, reasoning bool) {
	if m.live.retry != nil {
		m.live.retry = nil
		m.chromeDirty = true
	}
	if reasoning {
		m.ensureReasoning().write(text)
		m.live.phase = phaseThinking
	} else {
		m.ensureStream().write(text)
		m.live.phase = phaseResponding
	}
	m.live.streamDirty = true
}

// onMessageCompleted replaces streamed text with the authoritative text
// and closes the streaming blocks.
func (m *Model) onMessageCompleted(e *loop.MessageCompleted) {
	m.live.retry = nil
	if strings.TrimSpace(e.Reasoning) != "" {
		m.ensureReasoning().set(e.Reasoning)
	}
	if r := m.live.reasoning; r != nil {
		r.streaming = false
		r.ver++
	}
	if strings.TrimSpace(e.Content) != "" {
		a := m.ensureStream()
		a.set(e.Content)
		a.streaming = false
		a.ver++
		m.ses.lastAnswer = e.Content
	} else if a := m.live.stream; a != nil {
		m.tr.remove(a)
	}
	m.live.stream, m.live.reasoning = nil, nil
	m.live.streamDirty = false
	m.ses.turnUsage.Add(e.Usage)
	if n := e.Usage.InputTokens + e.Usage.CacheReadTokens + e.Usage.CacheWriteTokens; n > 0 {
		m.ses.ctxTokens = n + e.Usage.OutputTokens
	}
	if len(e.ToolCalls) > 0 {
		m.live.phase = phaseTools
	}
	m.trDirty, m.chromeDirty = true, true
}

// onToolsPlanned adds the batch card with every call queued.
func (m *Model) onToolsPlanned(e *loop.ToolsPlanned) {
	b := &toolBatch{}
	for _, seg := range e.Segments {
		s := &toolSegment{mode: seg.Mode}
		for _, c := range seg.Calls {
			tc := &toolCall{id: c.ID, name: c.Name, args: c.Arguments}
			s.calls = append(s.calls, tc)
			m.live.calls[c.ID] = callRef{call: tc, batch: b}
		}
		b.segments = append(b.segments, s)
	}
	m.live.batch = b
	m.live.phase = phaseTools
	m.tr.push(b)
	m.trDirty, m.chromeDirty = true, true
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
	m.clearStopHint(c)
	m.unfocus(c)
	ref.batch.ver++
	m.trDirty, m.chromeDirty = true, true
}

// adHocCall creates a one-call batch for a call no plan announced.
func (m *Model) adHocCall(id, name, args string) callRef {
	c := &toolCall{id: id, name: name, args: args}
	b := &toolBatch{segments: []*toolSegment{{mode: "sequential", calls: []*toolCall{c}}}}
	ref := callRef{call: c, batch: b}
	m.live.calls[id] = ref
	m.tr.push(b)
	return ref
}

// onRetry shows the retry pane and keeps a line in the transcript.
func (m *Model) onRetry(e *loop.RetryScheduled) tea.Cmd {
	deadline := e.TS.Time().Add(msDuration(e.DelayMS))
	m.live.retry = &retryState{ev: *e, deadline: deadline}
	m.live.phase = phaseRetrying
	text := fmt.Sprintf("retry %d/%d after %s", e.Attempt, e.MaxAttempts, reasonLabel(e.Reason, e.Status))
	m.notice(noticeMuted, text)
	m.chromeDirty = true
	return m.ensureTicking()
}

func (m *Model) onFallback(e *loop.FallbackActivated) {
	to := e.To
	m.live.fallback = &to
	m.ses.provider, m.ses.model = to.Provider, to.Model
	m.notice(noticeWarn, fmt.Sprintf("fallback: %s/%s → %s/%s (%s)", e.From.Provider, e.From.Model, to.Provider, to.Model, e.Reason))
	m.chromeDirty = true
}

// onGuardrail keeps the last few guardrail events in the pane; a halt is
// also written to the transcript.
func (m *Model) onGuardrail(e *loop.Guardrail) {
	const keep = 3
	m.live.guards = append(m.live.guards, *e)
	if len(m.live.guards) > keep {
		m.live.guards = m.live.guards[len(m.live.guards)-keep:]
	}
	if ref, ok := m.live.calls[e.ID]; ok && e.ID != "" {
		ref.call.guard = fmt.Sprintf("%s: %s", e.Code, e.Message)
		ref.batch.ver++
		m.trDirty = true
	}
	if e.Action == "halt" {
		m.notice(noticeError, fmt.Sprintf("guardrail halted the turn: %s (%s ×%d)", e.Message, e.Code, e.Count))
	}
	m.chromeDirty = true
}

// onSteerQueued records a steer the screen does not show yet: one sent
// elsewhere, or its own whose id it has not learnt (handleSteerAck then
// drops the duplicate).
func (m *Model) onSteerQueued(e *loop.SteerQueued) {
	if e.ID != 0 && (m.turn.delivered[e.ID] || slices.ContainsFunc(m.turn.pendingSteers, func(s steerEntry) bool { return s.id == e.ID })) {
		return
	}
	m.turn.pendingSteers = append(m.turn.pendingSteers, steerEntry{id: e.ID, text: e.Text})
	m.chromeDirty = true
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
	m.closeStreams(e.ExitReason)
	m.settleTools()
	if e.FinalResponse != "" {
		m.ses.lastAnswer = e.FinalResponse
	}
	u := e.Usage
	if u.InputTokens+u.OutputTokens+u.CacheReadTokens+u.CacheWriteTokens == 0 {
		u = m.ses.turnUsage
	}
	m.ses.usage.Add(u)
	m.ses.turnUsage = providers.Usage{}
	m.summarize(e)
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
