package ui

import (
	"slices"
	"strings"
	"time"

	"talaria/themes"
)

// item is one block of the transcript: a user message, an answer, a
// reasoning block, a tool batch or a notice.
type item interface {
	// render draws the item for rc.width columns, one string per screen
	// line. It runs in Update, only when the cached lines are stale.
	render(rc *renderCtx) []string
	// version changes whenever the item's content changes.
	version() int
	// live reports whether the item shows time-dependent state (spinners,
	// elapsed times); live items are redrawn on every frame.
	live() bool
}

// renderCtx is everything an item's render may read.
type renderCtx struct {
	width         int
	gen           int // bumped on theme change and reasoning toggle
	frame         int
	now           time.Time
	st            *themes.Styles
	md            *markdown
	showReasoning bool
	// liveLines is how many lines of a running call's output its lane
	// shows (display.live_lines).
	liveLines int
}

// entry caches one item's rendered lines, plus the blank separator line.
type entry struct {
	it    item
	lines []string
	key   cacheKey
	frame int
	// near is the refresh that last found the entry in or near the window
	// (see evict).
	near int
}

// Rendered lines are kept for at most maxCachedEntries entries: past
// that, refresh drops those of entries more than cacheMargin entries away
// from the window. Scrolling through a long session (to its top, say)
// then holds the lines near the window, not the whole session's.
const (
	maxCachedEntries = 256
	cacheMargin      = 64
)

type cacheKey struct{ width, gen, ver int }

// transcript is a virtual list over the items: it renders and joins only
// the visible window, so the cost of a frame does not grow with the
// session. Its scroll position is an anchor (item index and line within
// it), so resizing keeps what the user was reading at the top. While
// following, the window sticks to the bottom.
type transcript struct {
	entries []*entry
	width   int
	height  int
	follow  bool
	top     int // anchor item while not following
	topLine int // line within the anchor item
	view    string
	hasLive bool // a live item is in the window
	// rows says which item line each row of view shows (for the mouse).
	rows []rowRef
	// cached are the entries holding rendered lines, in the order they
	// were rendered; refreshes counts refresh calls (entry.near).
	cached    []*entry
	refreshes int
	// reachedTop is set when a scroll up ended at the first item's first
	// line: the screen may page older messages in (older.go).
	reachedTop bool
}

func newTranscript() *transcript {
	return &transcript{follow: true}
}

// push appends an item.
func (t *transcript) push(it item) {
	t.entries = append(t.entries, &entry{it: it})
}

// remove drops an item (an answer that streamed nothing, for example).
// Such items are at or near the end, so the search runs from there; an
// index of every item cost a map entry per message on a long session.
func (t *transcript) remove(it item) {
	i := len(t.entries) - 1
	for i >= 0 && t.entries[i].it != it {
		i--
	}
	if i < 0 {
		return
	}
	if j := slices.Index(t.cached, t.entries[i]); j >= 0 {
		t.cached = slices.Delete(t.cached, j, j+1)
	}
	t.entries = slices.Delete(t.entries, i, i+1)
	if i < t.top {
		t.top--
	}
}

// reset empties the transcript.
func (t *transcript) reset() {
	t.entries, t.cached = nil, nil
	t.follow, t.top, t.topLine = true, 0, 0
}

// len is the number of items.
func (t *transcript) len() int { return len(t.entries) }

// setSize sets the window size.
func (t *transcript) setSize(w, h int) { t.width, t.height = w, max(0, h) }

// lines returns item i's cached lines (with the separator), re-rendering
// when the width, the theme generation or the item changed.
func (t *transcript) lines(i int, rc *renderCtx) []string {
	e := t.entries[i]
	k := cacheKey{width: rc.width, gen: rc.gen, ver: e.it.version()}
	if e.lines == nil || e.key != k || (e.it.live() && e.frame != rc.frame) {
		if e.lines == nil {
			t.cached = append(t.cached, e)
		}
		ts, trims := e.it.(topShifter)
		var before int
		if trims {
			before = ts.topShift()
		}
		e.lines = append(e.it.render(rc), "")
		e.key, e.frame = k, rc.frame
		if trims && !t.follow && t.top == i {
			t.topLine = max(0, t.topLine-(ts.topShift()-before))
		}
	}
	return e.lines
}

// topShifter is an item whose render can lose lines at its top (a
// streaming answer past its cap drops its oldest part): topShift counts
// them, so a reader scrolled into it keeps their place.
type topShifter interface{ topShift() int }

// visibleLines returns item i's lines without the separator after the last
// item.
func (t *transcript) visibleLines(i int, rc *renderCtx) []string {
	ls := t.lines(i, rc)
	if i == len(t.entries)-1 {
		return ls[:len(ls)-1]
	}
	return ls
}

// refresh rebuilds the visible window.
func (t *transcript) refresh(rc *renderCtx) {
	t.hasLive = false
	if t.height == 0 || t.width == 0 {
		t.view = ""
		return
	}
	var out []string
	if !t.follow {
		out = t.windowFromAnchor(rc)
		if out == nil {
			t.follow = true
		}
	}
	if t.follow {
		out = t.windowFromBottom(rc)
	}
	for len(out) < t.height {
		out = append(out, "")
	}
	t.mapRows(rc)
	t.view = strings.Join(out, "\n")
	t.evict()
}

// evict drops the rendered lines of entries far from the window once more
// than maxCachedEntries hold some; they render again when scrolled to.
func (t *transcript) evict() {
	t.refreshes++
	if len(t.cached) <= maxCachedEntries {
		return
	}
	lo, hi := len(t.entries), -1
	for _, r := range t.rows {
		if r.entry >= 0 {
			lo, hi = min(lo, r.entry), max(hi, r.entry)
		}
	}
	if hi < 0 {
		lo, hi = len(t.entries)-1, len(t.entries)-1
	}
	for i := max(0, lo-cacheMargin); i <= min(len(t.entries)-1, hi+cacheMargin); i++ {
		t.entries[i].near = t.refreshes
	}
	kept := t.cached[:0]
	for _, e := range t.cached {
		if e.near == t.refreshes && e.lines != nil {
			kept = append(kept, e)
		} else {
			e.lines = nil
		}
	}
	clear(t.cached[len(kept):])
	t.cached = kept
}

// mapRows records which item line each row of the window shows.
func (t *transcript) mapRows(rc *renderCtx) {
	top, topLine := t.top, t.topLine
	if t.follow {
		top, topLine = t.bottomAnchor(rc)
	}
	t.rows = t.rows[:0]
	for i, skip := top, topLine; i < len(t.entries) && len(t.rows) < t.height; i, skip = i+1, 0 {
		n := len(t.visibleLines(i, rc))
		for l := skip; l < n && len(t.rows) < t.height; l++ {
			t.rows = append(t.rows, rowRef{i, l})
		}
	}
	for len(t.rows) < t.height {
		t.rows = append(t.rows, rowRef{entry: -1})
	}
}

// bottomAnchor is the anchor of the window that ends at the bottom.
func (t *transcript) bottomAnchor(rc *renderCtx) (top, topLine int) {
	n := 0
	for i := len(t.entries) - 1; i >= 0; i-- {
		n += len(t.visibleLines(i, rc))
		if n >= t.height {
			return i, n - t.height
		}
	}
	return 0, 0
}

// windowFromBottom collects the last height lines.
func (t *transcript) windowFromBottom(rc *renderCtx) []string {
	var chunks [][]string
	n := 0
	for i := len(t.entries) - 1; i >= 0 && n < t.height; i-- {
		ls := t.visibleLines(i, rc)
		chunks = append(chunks, ls)
		n += len(ls)
		t.hasLive = t.hasLive || t.entries[i].it.live()
	}
	out := make([]string, 0, n)
	for i := len(chunks) - 1; i >= 0; i-- {
		out = append(out, chunks[i]...)
	}
	if len(out) > t.height {
		out = out[len(out)-t.height:]
	}
	return out
}

// windowFromAnchor collects height lines from the anchor down. It returns
// nil when fewer remain, meaning the window reached the bottom.
func (t *transcript) windowFromAnchor(rc *renderCtx) []string {
	if t.top >= len(t.entries) {
		return nil
	}
	t.topLine = min(t.topLine, max(0, len(t.visibleLines(t.top, rc))-1))
	out := make([]string, 0, t.height)
	for i, skip := t.top, t.topLine; i < len(t.entries) && len(out) < t.height; i, skip = i+1, 0 {
		ls := t.visibleLines(i, rc)
		out = append(out, ls[min(skip, len(ls)):]...)
		t.hasLive = t.hasLive || t.entries[i].it.live()
	}
	if len(out) < t.height {
		return nil
	}
	return out[:t.height]
}

// anchorFromBottom converts the following position into an anchor.
func (t *transcript) anchorFromBottom(rc *renderCtx) {
	t.top, t.topLine = t.bottomAnchor(rc)
}

// scrollUp moves the window up n lines; it stops following.
func (t *transcript) scrollUp(n int, rc *renderCtx) {
	if len(t.entries) == 0 {
		return
	}
	if t.follow {
		t.anchorFromBottom(rc)
		t.follow = false
	}
	t.topLine -= n
	for t.topLine < 0 && t.top > 0 {
		t.top--
		t.topLine += len(t.visibleLines(t.top, rc))
	}
	t.topLine = max(0, t.topLine)
	t.reachedTop = t.top == 0 && t.topLine == 0
}

// prepend puts items before the first one (older messages paged in); the
// window stays on what it showed.
func (t *transcript) prepend(items []item) {
	if len(items) == 0 {
		return
	}
	es := make([]*entry, 0, len(items)+len(t.entries))
	for _, it := range items {
		es = append(es, &entry{it: it})
	}
	t.entries = append(es, t.entries...)
	if !t.follow {
		t.top += len(items)
	}
}

// dropFront drops the first n items (what the pager paged in), and their
// rendered lines; the window stays on what it showed.
func (t *transcript) dropFront(n int) {
	n = min(n, len(t.entries))
	if n <= 0 {
		return
	}
	gone := t.entries[:n]
	t.cached = slices.DeleteFunc(t.cached, func(e *entry) bool { return slices.Contains(gone, e) })
	t.entries = slices.Clone(t.entries[n:])
	if !t.follow {
		if t.top < n {
			t.top, t.topLine = 0, 0
		} else {
			t.top -= n
		}
	}
}

// scrollDown moves the window down n lines; reaching the bottom resumes
// following.
func (t *transcript) scrollDown(n int, rc *renderCtx) {
	if t.follow {
		return
	}
	t.topLine += n
	for t.top < len(t.entries)-1 {
		l := len(t.visibleLines(t.top, rc))
		if t.topLine < l {
			break
		}
		t.topLine -= l
		t.top++
	}
	if t.windowFromAnchor(rc) == nil {
		t.follow = true
	}
}
