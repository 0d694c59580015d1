package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"talaria/themes"
)

// pager is the full-screen reader over the whole transcript (Ctrl+T):
// every tool call with its full arguments, output, error and diff, the
// reasoning and the answers. It follows the transcript while open (a
// running command's output, a streaming answer): see refreshed. It owns
// its state; the root model routes keys to it (update) and carries out
// the intent a key returns.
type pager struct {
	text  []string   // the snapshot's lines, unwrapped
	lines []string   // wrapped to the width, plain
	kinds []lineKind // of text
	// wrappedKinds are the kinds of lines.
	wrappedKinds []lineKind
	// blocks gives each line of text the block it belongs to (a message
	// or a tool call), codes its fenced code block in an answer (-1:
	// none); srcOf maps a line of lines to its line of text.
	blocks, codes, srcOf []int
	width                int
	top                  int
	query                string
	typing               bool // the search prompt is open
	input                string
	matches              []int // wrapped lines holding the query
	cur                  int   // index into matches
	// overModal marks a pager opened from a dialog (ctrl+t there): it
	// shows over the dialog, which comes back when it closes.
	overModal bool
	view      string
	// sig is the transcript's signature when the pager was built, at
	// taken; refreshPager builds it again when the transcript changed.
	sig   uint64
	taken time.Time
}

// lineKind styles a pager line.
type lineKind uint8

const (
	kindText lineKind = iota
	kindHead
	kindLabel
	kindAdd
	kindDel
	kindHunk
)

// pagerEnv is what the pager reads of the screen around it.
type pagerEnv struct {
	width, high int
	st          *themes.Styles
	hint        string // the screen's hint, which takes the status line
	now         time.Time
}

// rows is how many lines of text the pager shows: all but the status line.
func (e pagerEnv) rows() int { return max(1, e.high-1) }

// pagerIntent is what a key in the pager asks of the screen.
type pagerIntent uint8

const (
	pagerStay        pagerIntent = iota
	pagerClose                   // q, esc, ctrl+t
	pagerCopyMessage             // y
	pagerCopyCode                // c
)

// newPager snapshots the transcript and shows it, at the end.
func newPager(tr *transcript, env pagerEnv) *pager {
	p := &pager{sig: transcriptSig(tr), taken: env.now}
	p.snapshot(tr)
	p.layout(env.width)
	p.top = len(p.lines)
	p.render(env)
	return p
}

// transcriptSig changes whenever what the pager shows of the transcript
// does: an item added or removed, or one's content changed.
func transcriptSig(tr *transcript) uint64 {
	sig := uint64(len(tr.entries))
	for _, e := range tr.entries {
		sig = sig*1099511628211 + uint64(e.it.version()) + 1
	}
	return sig
}

// refreshed returns the pager built again when the transcript changed
// since it was built (at most once a frame), else p: a reader at the end
// stays at the end, following new output; one scrolled up keeps the line
// at the top; the search is run again.
func (p *pager) refreshed(tr *transcript, env pagerEnv) *pager {
	if env.now.Sub(p.taken) < frameInterval {
		return p
	}
	sig := transcriptSig(tr)
	if sig == p.sig {
		return p
	}
	atEnd := p.top >= len(p.lines)-env.rows()
	q := &pager{sig: sig, taken: env.now, top: p.top, query: p.query, typing: p.typing, input: p.input, overModal: p.overModal}
	q.snapshot(tr)
	q.layout(env.width)
	if atEnd {
		q.top = len(q.lines)
	}
	if len(q.matches) > 0 {
		q.cur = min(p.cur, len(q.matches)-1)
	}
	q.render(env)
	return q
}

// snapshot turns the transcript's items into the pager's lines. A huge
// text costs one pass: its lines are substrings of it, and only those
// that are not plain ASCII are sanitized (and copied).
func (p *pager) snapshot(tr *transcript) {
	block := 0
	var answers []int // the blocks that are answers (markdown)
	add := func(kind lineKind, text string) {
		n := strings.Count(text, "\n") + 1
		p.text, p.kinds = slices.Grow(p.text, n), slices.Grow(p.kinds, n)
		for {
			i := strings.IndexByte(text, '\n')
			line := text
			if i >= 0 {
				line = text[:i]
			}
			if !plainASCII(line) {
				line = strings.ReplaceAll(sanitize(line), "\t", "    ")
			}
			p.text, p.kinds = append(p.text, line), append(p.kinds, kind)
			p.blocks = append(p.blocks, block)
			if i < 0 {
				return
			}
			text = text[i+1:]
		}
	}
	for _, e := range tr.entries {
		switch it := e.it.(type) {
		case *userItem:
			prefix := "› "
			if it.steer {
				prefix = "↳ steer: "
			}
			add(kindHead, prefix+it.text)
		case *assistantItem:
			answers = append(answers, block)
			add(kindText, it.text())
		case *reasoningItem:
			add(kindLabel, "∴ reasoning")
			add(kindText, it.text())
		case *noticeItem:
			add(kindLabel, "• "+it.text)
		case *hookItem:
			it.run.pagerLines(add, it.tool)
		case *toolBatch:
			for _, s := range it.segments {
				for _, c := range s.calls {
					c.pagerLines(add)
					block++
				}
			}
		}
		p.text, p.kinds = append(p.text, ""), append(p.kinds, kindText)
		p.blocks = append(p.blocks, -1)
		block++
	}
	p.markCode(answers)
}

// markCode numbers the fenced code blocks of the answers' lines.
func (p *pager) markCode(answers []int) {
	p.codes = make([]int, len(p.text))
	code, in, open := 0, false, -1
	for i, l := range p.text {
		p.codes[i] = -1
		if !slices.Contains(answers, p.blocks[i]) {
			in = false
			continue
		}
		t := strings.TrimSpace(l)
		fence := strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")
		switch {
		case fence && in && p.blocks[i] == open:
			in = false
		case fence:
			in, open = true, p.blocks[i]
			code++
		case in:
			p.codes[i] = code
		}
	}
}

// pagerLines adds one call: its header, arguments, live output, result
// and diff, all in full (as far as the events carried them).
func (c *toolCall) pagerLines(add func(lineKind, string)) {
	state := map[toolState]string{toolPending: "queued", toolRunning: "running", toolDone: "done", toolFailed: "failed", toolCancelled: "cancelled", toolDenied: "denied"}[c.state]
	add(kindHead, fmt.Sprintf("⚙ %s · %s · %s · %s", c.name, c.id, state, fmtDuration(c.dur)))
	add(kindLabel, "arguments:")
	add(kindText, prettyArgs(c.args))
	if s := c.full.String(); s != "" {
		label := "live output:"
		if c.full.dropped > 0 {
			label = fmt.Sprintf("live output (the first %d bytes were not kept):", c.full.dropped)
		}
		add(kindLabel, label)
		add(kindText, strings.TrimRight(s, "\n"))
	}
	if c.output != "" {
		label := "result:"
		if c.state == toolFailed {
			label = "error:"
		}
		add(kindLabel, label)
		add(kindText, strings.TrimRight(c.output, "\n"))
	}
	if c.diff != "" {
		add(kindLabel, "diff:")
		for _, l := range strings.Split(strings.TrimRight(c.diff, "\n"), "\n") {
			add(diffKind(l), l)
		}
	}
	c.extraPagerLines(add)
}

// diffKind styles a diff line.
func diffKind(l string) lineKind {
	switch {
	case strings.HasPrefix(l, "+++ ") || strings.HasPrefix(l, "--- "):
		return kindLabel
	case strings.HasPrefix(l, "@@"):
		return kindHunk
	case strings.HasPrefix(l, "+"):
		return kindAdd
	case strings.HasPrefix(l, "-"):
		return kindDel
	}
	return kindText
}

// prettyArgs indents JSON arguments, keeping their bytes (no \u003e for
// >); anything else is kept as sent.
func prettyArgs(args string) string {
	var b bytes.Buffer
	if json.Indent(&b, []byte(args), "", "  ") != nil {
		return args
	}
	return b.String()
}

// layout wraps the snapshot to width and redoes the search.
func (p *pager) layout(width int) {
	p.width = width
	p.lines = slices.Grow(p.lines[:0], len(p.text))
	kinds := slices.Grow(p.wrappedKinds[:0], len(p.text))
	p.srcOf = p.srcOf[:0]
	for i, l := range p.text {
		n := len(p.lines)
		p.lines = wrapPagerLine(p.lines, l, max(1, width))
		for range len(p.lines) - n {
			kinds = append(kinds, p.kinds[i])
			p.srcOf = append(p.srcOf, i)
		}
	}
	p.wrappedKinds = kinds
	p.search()
}

// wrapPagerLine appends line l wrapped to width at word boundaries,
// continuation lines indented like l. Plain ASCII (most text, and all of
// a huge generated answer) is cut into substrings without copying, but
// for the indentation of continuation lines; anything else goes through
// wrapKeepIndent.
func wrapPagerLine(out []string, l string, width int) []string {
	if len(l) <= width && (plainASCII(l) || ansi.StringWidth(l) <= width) {
		return append(out, l)
	}
	if !plainASCII(l) {
		return append(out, wrapKeepIndent(l, width)...)
	}
	indent := len(l) - len(strings.TrimLeft(l, " "))
	if indent > width/3 {
		indent = 0
	}
	pad, room := "", width
	for len(l) > room {
		cut := strings.LastIndexByte(l[:room+1], ' ')
		next := cut + 1
		if cut <= 0 || strings.TrimLeft(l[:cut], " ") == "" {
			cut, next = room, room // one word longer than the line
		}
		out = append(out, pad+l[:cut])
		l = strings.TrimLeft(l[next:], " ")
		pad, room = strings.Repeat(" ", indent), width-indent
	}
	if l != "" {
		out = append(out, pad+l)
	}
	return out
}

// plainASCII reports whether every byte of s is a printable ASCII
// character, one column wide.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// search finds the wrapped lines holding the query (case-insensitive).
func (p *pager) search() {
	p.matches, p.cur = nil, 0
	if p.query == "" {
		return
	}
	q := strings.ToLower(p.query)
	ascii := plainASCII(q)
	for i, l := range p.lines {
		var hit bool
		if ascii && plainASCII(l) {
			hit = containsFoldASCII(l, q)
		} else {
			hit = strings.Contains(strings.ToLower(l), q)
		}
		if hit {
			p.matches = append(p.matches, i)
		}
	}
}

// containsFoldASCII reports whether l holds q (lower case), ignoring the
// case of l, both plain ASCII: no copy of l, so a search over a huge
// answer does not allocate per line.
func containsFoldASCII(l, q string) bool {
	if q == "" {
		return true
	}
	lower := func(c byte) byte {
		if 'A' <= c && c <= 'Z' {
			return c + 'a' - 'A'
		}
		return c
	}
	for i := 0; i+len(q) <= len(l); i++ {
		if lower(l[i]) != q[0] {
			continue
		}
		j := 1
		for j < len(q) && lower(l[i+j]) == q[j] {
			j++
		}
		if j == len(q) {
			return true
		}
	}
	return false
}

// update handles a key while the pager is open and says what the screen
// must do about it.
func (p *pager) update(msg tea.KeyPressMsg, env pagerEnv) pagerIntent {
	k := msg.String()
	if p.typing {
		switch k {
		case "enter":
			p.typing, p.query = false, p.input
			p.search()
			p.jumpMatch(0, true, env.rows())
		case "esc":
			p.typing = false
		case "backspace":
			if r := []rune(p.input); len(r) > 0 {
				p.input = string(r[:len(r)-1])
			}
		default:
			if msg.Text != "" {
				p.input += msg.Text
			}
		}
		p.render(env)
		return pagerStay
	}
	rows := env.rows()
	switch k {
	case "y":
		return pagerCopyMessage
	case "c":
		return pagerCopyCode
	case "q", "esc", "ctrl+t":
		return pagerClose
	case "/":
		p.typing, p.input = true, ""
	case "n":
		p.jumpMatch(1, false, rows)
	case "N":
		p.jumpMatch(-1, false, rows)
	case "g", "home":
		p.top = 0
	case "G", "end":
		p.top = len(p.lines)
	case "up", "k":
		p.top--
	case "down", "j", "enter":
		p.top++
	case "pgup", "b":
		p.top -= rows - 1
	case "pgdown", "space", "f":
		p.top += rows - 1
	}
	p.render(env)
	return pagerStay
}

// jumpMatch moves to the next (dir 1) or previous (-1) match, or with
// first to the first match at or below the top; the match shows a third
// of rows down.
func (p *pager) jumpMatch(dir int, first bool, rows int) {
	if len(p.matches) == 0 {
		return
	}
	if first {
		p.cur = 0
		for i, at := range p.matches {
			if at >= p.top {
				p.cur = i
				break
			}
		}
	} else {
		p.cur = (p.cur + dir + len(p.matches)) % len(p.matches)
	}
	p.top = p.matches[p.cur] - rows/3
}

// render rebuilds the pager's screen (in Update; View shows it).
func (p *pager) render(env pagerEnv) {
	if p.width != env.width {
		p.layout(env.width)
	}
	rows := env.rows()
	p.top = max(0, min(p.top, len(p.lines)-rows))
	st := env.st
	cur := -1
	if len(p.matches) > 0 {
		cur = p.matches[p.cur]
	}
	out := make([]string, 0, rows+1)
	for i := p.top; i < min(len(p.lines), p.top+rows); i++ {
		l := p.lines[i]
		switch {
		case i == cur:
			l = st.PopupSelected.Render(padRight(l, env.width))
		default:
			l = pagerStyle(st, p.wrappedKinds[i], l)
		}
		out = append(out, l)
	}
	for len(out) < rows {
		out = append(out, "")
	}
	var status string
	switch {
	case p.typing:
		status = st.UserPrompt.Render("/") + st.Text.Render(p.input)
	default:
		pos := fmt.Sprintf("pager · lines %d-%d of %d", min(p.top+1, len(p.lines)), min(len(p.lines), p.top+rows), len(p.lines))
		if p.query != "" {
			if len(p.matches) == 0 {
				pos += fmt.Sprintf(" · %q not found", p.query)
			} else {
				pos += fmt.Sprintf(" · %q %d/%d", p.query, p.cur+1, len(p.matches))
			}
		}
		status = st.Faint.Render(ansi.Truncate(pos+" · / search · n/N · g/G · y/c copy · q close", env.width, "…"))
		if env.hint != "" {
			status = st.Warning.Render(ansi.Truncate(env.hint, env.width, "…"))
		}
	}
	p.view = strings.Join(append(out, status), "\n")
}

// pagerStyle colours one line by its kind.
func pagerStyle(st *themes.Styles, k lineKind, l string) string {
	switch k {
	case kindHead:
		return st.Strong.Render(l)
	case kindLabel:
		return st.Muted.Render(l)
	case kindAdd:
		return st.DiffAdd.Render(l)
	case kindDel:
		return st.DiffDel.Render(l)
	case kindHunk:
		return st.DiffHunk.Render(l)
	}
	return st.Text.Render(l)
}
