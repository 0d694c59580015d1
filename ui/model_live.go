package ui

// The root model's side of the live panes (live.go, panes.go): it hands
// them the transcript and what they read of the screen, and marks what
// their answers make stale.

// dirty names the cached screen parts a component's change made stale.
type dirty uint8

const (
	dirtyTranscript dirty = 1 << iota // the transcript (trDirty)
	dirtyChrome                       // the panes, composer and status line (chromeDirty)
	dirtyInput                        // only the composer or the modal in its place (inputDirty)
)

// mark records what a component made stale.
func (m *Model) mark(d dirty) {
	if d&dirtyTranscript != 0 {
		m.trDirty = true
	}
	if d&dirtyChrome != 0 {
		m.chromeDirty = true
	}
	if d&dirtyInput != 0 {
		m.inputDirty = true
	}
}

// paneEnv is what the live panes read of the screen.
func (m *Model) paneEnv() *paneEnv {
	return &paneEnv{
		width: m.width, high: m.high, st: &m.look.st, frame: m.ui.frame, now: m.ui.now,
		hint: m.ui.hint, composerRows: lineCount(m.composerView), follow: m.tr.follow,
		pending: m.pending, asking: m.dialog() != nil, askedAt: m.modal.shownAt, turn: &m.turn,
	}
}

// beginLive resets the per-turn panes.
func (m *Model) beginLive() { m.live = newLive(m.opts.MaxIterations) }
