package ui

import (
	"fmt"
	"strings"
	"time"

	"talaria/loop"
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

// newLive is the panes' state at the start of a turn.
func newLive(maxIterations int) liveState {
	return liveState{
		budget: budgetState{max: maxIterations},
		phase:  phaseWaiting,
		calls:  map[string]callRef{},
	}
}

// end clears what only makes sense while a turn runs. The fallback
// marker stays until the next turn starts.
func (l *liveState) end(tr *transcript) dirty {
	d := l.closeStreams(tr, loop.Exit{})
	l.phase = phaseIdle
	l.retry = nil
	l.guards = nil
	l.batch = nil
	return d
}

// answer returns the streaming answer block, creating it (which makes
// the transcript stale).
func (l *liveState) answer(tr *transcript) (*assistantItem, dirty) {
	if l.stream == nil {
		l.stream = &assistantItem{streaming: true}
		tr.push(l.stream)
		return l.stream, dirtyTranscript
	}
	return l.stream, 0
}

// thought returns the streaming reasoning block, creating it (which makes
// the transcript stale).
func (l *liveState) thought(tr *transcript) (*reasoningItem, dirty) {
	if l.reasoning == nil {
		l.reasoning = &reasoningItem{streaming: true}
		tr.push(l.reasoning)
		return l.reasoning, dirtyTranscript
	}
	return l.reasoning, 0
}

// flush makes buffered deltas visible.
func (l *liveState) flush() dirty {
	if !l.streamDirty {
		return 0
	}
	l.streamDirty = false
	var d dirty
	if a := l.stream; a != nil && a.flush() {
		d = dirtyTranscript
	}
	if r := l.reasoning; r != nil && r.flush() {
		d = dirtyTranscript
	}
	return d
}

// closeStreams ends streaming blocks left open by an interrupted turn.
func (l *liveState) closeStreams(tr *transcript, exit loop.Exit) dirty {
	if a := l.stream; a != nil {
		a.flush()
		a.streaming = false
		if exit.Interrupted() {
			a.note = "interrupted"
		}
		a.ver++
		if strings.TrimSpace(a.text()) == "" {
			tr.remove(a)
		}
	}
	if r := l.reasoning; r != nil {
		r.flush()
		r.streaming = false
		r.ver++
	}
	l.stream, l.reasoning, l.streamDirty = nil, nil, false
	return dirtyTranscript
}

// settle marks calls that never finished as cancelled.
func (l *liveState) settle() dirty {
	var d dirty
	for _, ref := range l.calls {
		if c := ref.call; c.state == toolPending || c.state == toolRunning {
			c.state = toolCancelled
			ref.batch.ver++
			d = dirtyTranscript
		}
	}
	return d
}

// turnSummary is the one-line turn summary, or why the turn ended early,
// then the cleanup errors: the notices the transcript gets.
func turnSummary(e *loop.TurnFinished, started time.Time) []noticeItem {
	elapsed := fmtDuration(e.TS.Time().Sub(started))
	if started.IsZero() {
		elapsed = "–"
	}
	var out []noticeItem
	switch {
	case e.Completed:
		out = append(out, noticeItem{kind: noticeMuted, text: fmt.Sprintf("done · %d API call%s · %s", e.APICalls, plural(e.APICalls), elapsed)})
	case e.ExitReason.Interrupted():
		out = append(out, noticeItem{kind: noticeWarn, text: withExplanation("interrupted ("+e.ExitReason.String()+")", e.Explanation)})
	default:
		out = append(out, noticeItem{kind: noticeError, text: explanationFirst(e.ExitReason.String(), e.Explanation)})
	}
	for _, ce := range e.CleanupErrors {
		out = append(out, noticeItem{kind: noticeWarn, text: "cleanup: " + ce})
	}
	return out
}

func withExplanation(s, expl string) string {
	if strings.TrimSpace(expl) == "" {
		return s
	}
	return s + " — " + expl
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

// toolOutput adds a running call's output to its lane.
func (l *liveState) toolOutput(e *loop.ToolOutput) dirty {
	ref, ok := l.calls[e.ID]
	if !ok {
		return 0
	}
	ref.call.live.write(e.Text)
	ref.call.full.write(e.Text)
	ref.batch.ver++
	return dirtyTranscript
}

// stopHintDone reports whether hint, the "stopping NAME…" hint, is done
// now that call c ended: c is the call it names, the one /cancel ID named
// or the focused lane x stopped (ask before the lane loses its focus).
// The stop it announced is done; the hint must not stay its full two
// seconds under a lane that already says "stopped".
func (l *liveState) stopHintDone(hint string, c *toolCall) bool {
	if !strings.HasPrefix(hint, "stopping "+c.name) {
		return false
	}
	return strings.HasSuffix(hint, "("+c.id+")…") || (l.focus == c.id && hint == "stopping "+c.name+"…")
}
