package ui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"talaria/loop"
	"talaria/providers"
)

// frameInterval is the animation and streaming flush period.
const frameInterval = 100 * time.Millisecond

// phase is what the running turn is doing, for the activity line.
type phase int

const (
	phaseIdle phase = iota
	phaseWaiting
	phaseThinking
	phaseResponding
	phaseTools
	phaseRetrying
)

// budgetState is the iteration budget gauge.
type budgetState struct{ iteration, used, max, refunds int }

// retryState is a scheduled retry; the countdown runs to deadline, which
// is the event's timestamp plus its delay.
type retryState struct {
	ev       loop.RetryScheduled
	deadline time.Time
}

// callRef finds a call's lane and the batch card that draws it.
type callRef struct {
	call  *toolCall
	batch *toolBatch
}

// liveState is the per-turn state the live panes show.
type liveState struct {
	budget      budgetState
	retry       *retryState
	guards      []loop.Guardrail
	fallback    *loop.Backend // set when a fallback activated this turn
	phase       phase
	stream      *assistantItem
	reasoning   *reasoningItem
	streamDirty bool
	batch       *toolBatch
	calls       map[string]callRef
	// focus is the tool_call_id of the lane x stops; confirmStop is set
	// once x was pressed on a long-running one.
	focus, confirmStop string
}

// frameMsg is the animation tick.
type frameMsg struct{}

// beginLive resets the per-turn panes.
func (m *Model) beginLive() {
	m.live = liveState{
		budget: budgetState{max: m.opts.MaxIterations},
		phase:  phaseWaiting,
		calls:  map[string]callRef{},
	}
}

// endLive clears what only makes sense while a turn runs. The fallback
// marker stays until the next turn starts.
func (m *Model) endLive() {
	m.closeStreams(loop.Exit{})
	m.live.phase = phaseIdle
	m.live.retry = nil
	m.live.guards = nil
	m.live.batch = nil
}

// ensureStream returns the streaming answer block, creating it.
func (m *Model) ensureStream() *assistantItem {
	if m.live.stream == nil {
		m.live.stream = &assistantItem{streaming: true}
		m.tr.push(m.live.stream)
		m.trDirty = true
	}
	return m.live.stream
}

// ensureReasoning returns the streaming reasoning block, creating it.
func (m *Model) ensureReasoning() *reasoningItem {
	if m.live.reasoning == nil {
		m.live.reasoning = &reasoningItem{streaming: true}
		m.tr.push(m.live.reasoning)
		m.trDirty = true
	}
	return m.live.reasoning
}

// flushStreams makes buffered deltas visible.
func (m *Model) flushStreams() {
	if !m.live.streamDirty {
		return
	}
	m.live.streamDirty = false
	if a := m.live.stream; a != nil && a.flush() {
		m.trDirty = true
	}
	if r := m.live.reasoning; r != nil && r.flush() {
		m.trDirty = true
	}
}

// closeStreams ends streaming blocks left open by an interrupted turn.
func (m *Model) closeStreams(exit loop.Exit) {
	if a := m.live.stream; a != nil {
		a.flush()
		a.streaming = false
		if exit.Interrupted() {
			a.note = "interrupted"
		}
		a.ver++
		if strings.TrimSpace(a.text()) == "" {
			m.tr.remove(a)
		}
	}
	if r := m.live.reasoning; r != nil {
		r.flush()
		r.streaming = false
		r.ver++
	}
	m.live.stream, m.live.reasoning, m.live.streamDirty = nil, nil, false
	m.trDirty = true
}

// settleTools marks calls that never finished as cancelled.
func (m *Model) settleTools() {
	for _, ref := range m.live.calls {
		if c := ref.call; c.state == toolPending || c.state == toolRunning {
			c.state = toolCancelled
			ref.batch.ver++
			m.trDirty = true
		}
	}
}

// summarize writes the one-line turn summary, or why the turn ended early.
func (m *Model) summarize(e *loop.TurnFinished) {
	elapsed := fmtDuration(e.TS.Time().Sub(m.turn.started))
	if m.turn.started.IsZero() {
		elapsed = "–"
	}
	switch {
	case e.Completed:
		m.notice(noticeMuted, fmt.Sprintf("done · %d API call%s · %s", e.APICalls, plural(e.APICalls), elapsed))
	case e.ExitReason.Interrupted():
		m.notice(noticeWarn, withExplanation("interrupted ("+e.ExitReason.String()+")", e.Explanation))
	default:
		m.notice(noticeError, explanationFirst(e.ExitReason.String(), e.Explanation))
	}
	for _, ce := range e.CleanupErrors {
		m.notice(noticeWarn, "cleanup: "+ce)
	}
}

func withExplanation(s, expl string) string {
	if strings.TrimSpace(expl) == "" {
		return s
	}
	return s + " — " + expl
}

// ensureTicking starts the frame tick unless it runs already.
func (m *Model) ensureTicking() tea.Cmd {
	if m.ui.ticking {
		return nil
	}
	m.ui.ticking = true
	return frameTick()
}

func frameTick() tea.Cmd {
	return tea.Tick(frameInterval, func(time.Time) tea.Msg { return frameMsg{} })
}

// needsTick reports whether anything on screen still moves.
func (m *Model) needsTick() bool {
	return m.turn.busy || m.live.retry != nil || m.ui.hint != "" || m.live.streamDirty || m.tr.hasLive || m.ui.mcpStarting != "" ||
		(m.dialog() != nil && !m.modal.armed)
}

// handleFrame advances spinners and countdowns and flushes streamed text.
func (m *Model) handleFrame() tea.Cmd {
	m.ui.now = m.clock()
	m.ui.frame++
	if m.ui.hint != "" && !m.ui.now.Before(m.ui.hintUntil) {
		m.ui.hint = ""
		m.chromeDirty = true
	}
	m.flushStreams()
	m.dialogArmed()
	m.pollMCP()
	if m.tr.hasLive {
		m.trDirty = true
	}
	if m.turn.busy || m.live.retry != nil {
		m.chromeDirty = true
	}
	if !m.needsTick() {
		m.ui.ticking = false
		return nil
	}
	return frameTick()
}

// pollMCP reads which MCP servers still start and reports whether any
// does; the status line shows them.
func (m *Model) pollMCP() bool {
	if m.agent == nil {
		return false
	}
	for _, n := range m.agent.MCPNotices() {
		m.notice(noticeWarn, n)
	}
	s := strings.Join(m.agent.MCPStarting(), ", ")
	if s != m.ui.mcpStarting {
		m.ui.mcpStarting, m.chromeDirty = s, true
	}
	return s != ""
}

// notice adds a notice to the transcript.
func (m *Model) notice(kind noticeKind, text string) {
	m.tr.push(&noticeItem{kind: kind, text: text})
	m.trDirty = true
}

// addUser adds a user message (or a delivered steer) to the transcript.
func (m *Model) addUser(text string, steer bool) {
	m.tr.push(&userItem{text: text, steer: steer})
	if !steer {
		m.noteTitle(text)
		m.scrollToEnd() // a new turn starts at the bottom
	}
	m.trDirty = true
}

// loadHistory shows a resumed session's messages: user messages,
// reasoning, answers and tool calls with their results.
func (m *Model) loadHistory(msgs []providers.Message) {
	calls := map[string]*callRef{}
	for _, msg := range msgs {
		switch msg.Role {
		case providers.RoleUser:
			if strings.TrimSpace(msg.Content) != "" {
				m.addUser(msg.Content, false)
				m.comp.history = append(m.comp.history, msg.Content)
			}
		case providers.RoleAssistant:
			m.loadAssistant(msg, calls)
		case providers.RoleTool:
			if ref, ok := calls[msg.ToolCallID]; ok {
				ref.call.state, ref.call.output = resumedState(msg), msg.Content
				ref.batch.ver++
			}
		}
	}
	for _, ref := range calls {
		if ref.call.state == toolPending {
			ref.call.state = toolCancelled
		}
	}
	m.comp.histIdx = len(m.comp.history)
	if len(msgs) > 0 {
		m.notice(noticeMuted, fmt.Sprintf("resumed session · %d messages", m.older.before+len(msgs)))
	}
}

// loadAssistant adds one stored assistant message.
func (m *Model) loadAssistant(msg providers.Message, calls map[string]*callRef) {
	if strings.TrimSpace(msg.Reasoning) != "" {
		r := &reasoningItem{}
		r.set(msg.Reasoning)
		m.tr.push(r)
	}
	if strings.TrimSpace(msg.Content) != "" {
		a := &assistantItem{}
		a.set(msg.Content)
		m.tr.push(a)
		m.ses.lastAnswer = msg.Content
	}
	if len(msg.ToolCalls) == 0 {
		return
	}
	b := &toolBatch{segments: []*toolSegment{{mode: "sequential"}}}
	for _, tc := range msg.ToolCalls {
		c := &toolCall{id: tc.ID, name: tc.Name, args: tc.Arguments}
		b.segments[0].calls = append(b.segments[0].calls, c)
		calls[tc.ID] = &callRef{call: c, batch: b}
	}
	m.tr.push(b)
}

// msDuration converts milliseconds to a duration.
func msDuration(ms int64) time.Duration { return time.Duration(ms) * time.Millisecond }

// Live output of a lane.
const (
	// defaultLiveLines is how many output lines a running lane shows
	// when display.live_lines is not set.
	defaultLiveLines = 5
	// liveRingLines is how many lines a lane keeps, whatever the output
	// length: display.live_lines cannot ask for more.
	liveRingLines = 64
	// liveLineCap clips one kept line.
	liveLineCap = 1000
	// fullOutputCap is how much of a call's live output the pager keeps
	// (its end).
	fullOutputCap = 256 << 10
)

// lineRing keeps the last liveRingLines lines written to it and the line
// still being written; its cost does not grow with the output, and a ring
// never written to (every stored call) holds no line array at all.
type lineRing struct {
	// lines is liveRingLines long once the first line is pushed.
	lines   []string
	next    int // where the next complete line goes
	count   int // complete lines ever
	partial string
}

// write adds output text.
func (r *lineRing) write(text string) {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	for {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			break
		}
		r.push(r.partial + text[:i])
		r.partial, text = "", text[i+1:]
	}
	if len(r.partial) < liveLineCap {
		r.partial += text
	}
}

// push stores one complete line, keeping only its last carriage-return
// segment (what a terminal would show of a progress bar).
func (r *lineRing) push(l string) {
	if i := strings.LastIndexByte(l, '\r'); i >= 0 {
		l = l[i+1:]
	}
	if len(l) > liveLineCap {
		l = l[:liveLineCap]
	}
	if r.lines == nil {
		r.lines = make([]string, liveRingLines)
	}
	r.lines[r.next] = l
	r.next = (r.next + 1) % liveRingLines
	r.count++
}

// total is the number of lines seen, the unfinished one included.
func (r *lineRing) total() int {
	if r.partial != "" {
		return r.count + 1
	}
	return r.count
}

// last returns up to n of the last lines, oldest first, the unfinished
// one included.
func (r *lineRing) last(n int) []string {
	n = min(n, liveRingLines)
	var out []string
	if r.partial != "" {
		n--
	}
	k := min(n, r.count)
	for i := k; i > 0; i-- {
		out = append(out, r.lines[(r.next-i+liveRingLines)%liveRingLines])
	}
	if r.partial != "" {
		p := r.partial
		if i := strings.LastIndexByte(p, '\r'); i >= 0 {
			p = p[i+1:]
		}
		out = append(out, p)
	}
	return out
}

// tailBuf keeps the last fullOutputCap bytes written to it.
type tailBuf struct {
	b       []byte
	dropped int
}

func (t *tailBuf) write(s string) {
	t.b = append(t.b, s...)
	if over := len(t.b) - fullOutputCap; over > 0 {
		t.dropped += over
		t.b = append(t.b[:0], t.b[over:]...)
	}
}

func (t *tailBuf) String() string { return strings.ToValidUTF8(string(t.b), "\uFFFD") }

// onToolOutput adds a running call's output to its lane.
func (m *Model) onToolOutput(e *loop.ToolOutput) {
	ref, ok := m.live.calls[e.ID]
	if !ok {
		return
	}
	ref.call.live.write(e.Text)
	ref.call.full.write(e.Text)
	ref.batch.ver++
	m.trDirty = true
}

// clearStopHint drops the "stopping NAME…" hint once call c, which just
// ended, is the call it names: the one /cancel ID named, or the focused
// lane x stopped (call it before the lane loses its focus). The stop it
// announced is done; the hint must not stay its full two seconds under a
// lane that already says "stopped".
func (m *Model) clearStopHint(c *toolCall) {
	h := m.ui.hint
	if !strings.HasPrefix(h, "stopping "+c.name) {
		return
	}
	if strings.HasSuffix(h, "("+c.id+")…") || (m.live.focus == c.id && h == "stopping "+c.name+"…") {
		m.ui.hint = ""
		m.chromeDirty = true
	}
}
