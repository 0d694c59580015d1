package ui

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
)

// Bounds on what one message draws in the transcript, so a huge answer
// (up to agent.max_response_bytes streamed, or any size in a resumed
// session) costs the screen a bounded amount per frame. The pager
// (ctrl+t) has the whole text.
const (
	// answerCap is how much of one answer the transcript renders: a
	// completed answer shows its first answerCap bytes, a streaming one
	// its last, with a marker for the rest. An answer up to 1 MiB (a
	// long review, a generated file) is shown whole.
	answerCap = 1 << 20
	// messageCap is answerCap for the other texts of the transcript: a
	// user message and a reasoning block show their first 64 KiB.
	messageCap = 64 << 10
	// pieceCap is the most text a streaming answer re-renders per frame
	// as its open tail: a longer block still open (a long code block, a
	// huge list) is cut into pieces of about this size while it streams,
	// and rendered whole once the answer completes.
	pieceCap = 8 << 10
	// tailCap is what is left of the open tail, re-rendered every
	// frame, after such a cut.
	tailCap = 4 << 10
	// reasoningTail is how much of a reasoning block shown while it
	// streams (ctrl+o) is wrapped per frame: its last 16 KiB.
	reasoningTail = 16 << 10
)

// streamRender is the rendered part of a streaming answer. Every
// top-level block of the text but the last is finished (a markdown block
// once closed never reopens), so each is rendered once, when the next one
// starts, and kept in the joiner; a frame renders only the open last
// block. Only complete lines decide where blocks end (a partial "-" may
// yet become a rule). The blocks within the last answerCap bytes are
// kept; the text before them is hidden behind a marker.
type streamRender struct {
	width, gen, epoch int
	done              int    // bytes of the text whose blocks are rendered for good
	reopen            string // the code fence open at done after a forced cut, "" if none
	// fence says the last block rendered is a fenced code block: a
	// fenced block right after it gets the rule prepareMarkdown puts
	// between two code blocks.
	fence  bool
	j      joiner
	marks  []blockMark // where each kept block starts
	hidden int         // bytes before the first kept block
	// shift counts the lines taken off the top of the render so far
	// (dropped blocks, less the marker put there); it survives a reset,
	// so the transcript can keep a scrolled-up reader's place.
	shift int
}

// blockMark is where a rendered block starts: in the text, and in the
// joined lines.
type blockMark struct{ at, line int }

// renderStreaming renders the blocks that finished since the last frame
// and the open tail after them, so a frame costs the size of the new
// text, not of the whole answer. A new width or theme renders the
// finished blocks again, once.
func (a *assistantItem) renderStreaming(rc *renderCtx, w int) []string {
	text := a.text()
	s := &a.stream
	if s.epoch != a.epoch || s.done > len(text) || s.width != w || s.gen != rc.gen {
		*s = streamRender{width: w, gen: rc.gen, epoch: a.epoch, shift: s.shift}
	}
	a.cache.reset(w, rc.gen)
	if end := strings.LastIndexByte(text, '\n') + 1; end > s.done {
		s.commit(rc.md, text, end, w, &a.cache)
	}
	for len(text)-s.done > pieceCap {
		s.force(rc.md, text, cutPoint(text, s.done, min(s.done+pieceCap, len(text)-tailCap)), w)
	}
	s.window(len(text), a.limit())
	j := s.j.clone(64)
	if tail := s.reopen + text[s.done:]; strings.TrimSpace(tail) != "" {
		if s.fence && fenceOpener(strings.TrimLeft(tail, " ")) != "" {
			tail = "---\n\n" + tail
		}
		rc.md.blockRender(&j, prepareMarkdown(sanitize(tail)), w, nil)
	}
	lines := j.done()
	if s.hidden > 0 {
		return append([]string{rc.st.Muted.Render(fmt.Sprintf("… %s earlier — ctrl+t opens the pager", fmtSize(s.hidden))), ""}, lines...)
	}
	return lines
}

// commit renders the blocks of text[s.done:end] (complete lines) that a
// later block follows, and moves done to the start of the last one.
func (s *streamRender) commit(md *markdown, text string, end, w int, cache *blockCache) {
	src := s.reopen + text[s.done:end]
	blocks, _ := md.splitBlocks(src)
	if len(blocks) < 2 {
		return
	}
	last := blocks[len(blocks)-1].start
	if last < len(s.reopen) {
		return
	}
	for i, b := range blocks[:len(blocks)-1] {
		if b.end-b.start > pieceCap {
			// A block this long is cut into pieces (see force), so the
			// window can drop part of it.
			s.done += max(0, b.start-len(s.reopen))
			if i > 0 {
				s.reopen = ""
			}
			return
		}
		s.marks = append(s.marks, blockMark{at: s.done + max(0, b.start-len(s.reopen)), line: len(s.j.lines)})
		block := src[b.start:b.end]
		fence := b.kind == ast.KindFencedCodeBlock
		if s.fence && fence {
			block = "---\n\n" + block
		}
		md.blockRender(&s.j, prepareMarkdown(sanitize(block)), w, cache)
		s.fence = fence
	}
	s.done += last - len(s.reopen)
	s.reopen = "" // a block boundary is outside any fence
}

// force renders text[s.done:cut] as it is, the open block cut there (a
// code block is opened again after the cut).
func (s *streamRender) force(md *markdown, text string, cut, w int) {
	s.marks = append(s.marks, blockMark{at: s.done, line: len(s.j.lines)})
	md.blockRender(&s.j, prepareMarkdown(sanitize(s.reopen+text[s.done:cut])), w, nil)
	s.reopen = fenceAfter(text, s.done, cut, s.reopen)
	s.done, s.fence = cut, false
}

// window drops the kept blocks that fell out of the last answerCap
// bytes of a text n bytes long (in steps of an eighth of it, so the
// lines are not copied at every block).
func (s *streamRender) window(n, limit int) {
	if len(s.marks) == 0 || n-s.marks[0].at <= limit+limit/8 {
		return
	}
	k := 0
	for k < len(s.marks)-1 && n-s.marks[k].at > limit {
		k++
	}
	drop := s.marks[k].line
	for drop < len(s.j.lines) && blank(s.j.lines[drop]) {
		drop++
	}
	if s.hidden == 0 {
		s.shift -= 2 // the marker and its blank line
	}
	s.hidden = s.marks[k].at
	s.shift += drop
	s.j.lines = append([]string(nil), s.j.lines[drop:]...)
	s.marks = append([]blockMark(nil), s.marks[k:]...)
	for i := range s.marks {
		s.marks[i].line = max(0, s.marks[i].line-drop)
	}
}

// limit is the answer's cap: answerCap, or capBytes where a test set it.
func (a *assistantItem) limit() int {
	if a.capBytes > 0 {
		return a.capBytes
	}
	return answerCap
}

// topShift is how many lines the answer's renders have taken off its top
// so far (see streamRender.shift).
func (a *assistantItem) topShift() int { return a.stream.shift }

// cutPoint picks where to cut text between lo and at (lo < at): after
// the last line break before at, else after the last space in the 256
// bytes before it, else at the rune boundary at or before at (or just
// after it, when lo and at are in one rune). The result is above lo.
func cutPoint(text string, lo, at int) int {
	at = min(at, len(text))
	if i := strings.LastIndexByte(text[lo:at], '\n'); i >= 0 && lo+i+1 > lo {
		return lo + i + 1
	}
	from := max(lo, at-256)
	if i := strings.LastIndexByte(text[from:at], ' '); i >= 0 && from+i+1 > lo {
		return from + i + 1
	}
	for i := at; i > lo; i-- {
		if i == len(text) || utf8.RuneStart(text[i]) {
			return i
		}
	}
	for at < len(text) && !utf8.RuneStart(text[at]) {
		at++
	}
	return at
}

// fenceAfter is the code fence open at the end of text[start:end], given
// the one open at start (as in piece.reopen): each fence line seen at a
// line start toggles it.
func fenceAfter(text string, start, end int, open string) string {
	for off := start; off < end; {
		n := strings.IndexByte(text[off:end], '\n')
		line := text[off:end]
		if n >= 0 {
			line = line[:n]
		}
		if off == 0 || text[off-1] == '\n' {
			if t := strings.TrimLeft(line, " "); strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
				if open == "" {
					open = line + "\n"
				} else {
					open = ""
				}
			}
		}
		if n < 0 {
			break
		}
		off += n + 1
	}
	return open
}

// headOf is the part of a completed message the transcript shows: all of
// it up to messageCap, else its first messageCap bytes cut at a line
// break where there is one; more is how many bytes are left out.
func headOf(text string) (head string, more int) { return headCap(text, messageCap) }

// headCap is headOf with a cap of n bytes.
func headCap(text string, n int) (head string, more int) {
	if len(text) <= n {
		return text, 0
	}
	cut := cutPoint(text, 0, n)
	return text[:cut], len(text) - cut
}

// tailOf is headOf for a text still streaming: its last n bytes, and
// how many come before them.
func tailOf(text string, n int) (tail string, hidden int) {
	if len(text) <= n {
		return text, 0
	}
	cut := cutPoint(text, len(text)-n, len(text)-n+256)
	return text[cut:], cut
}

// moreMarker is the line under a message cut by headOf.
func moreMarker(rc *renderCtx, more int) string {
	return rc.st.Muted.Render(fmt.Sprintf("… %s more — ctrl+t opens the pager", fmtSize(more)))
}

// fmtSize writes a byte count for a person.
func fmtSize(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// wordCount counts the words of a growing text incrementally (as
// strings.Fields would split it), so a streaming reasoning block's label
// costs the new text only.
type wordCount struct {
	epoch, at, n int
	inWord       bool
}

func (c *wordCount) count(text string, epoch int) int {
	if c.epoch != epoch || c.at > len(text) {
		*c = wordCount{epoch: epoch}
	}
	for _, r := range text[c.at:] {
		sp := unicode.IsSpace(r)
		if !sp && !c.inWord {
			c.n++
		}
		c.inWord = !sp
	}
	c.at = len(text)
	return c.n
}

// firstLine is the first non-blank line of text, at most limit bytes of
// it, sanitized.
func firstLine(text string, limit int) string {
	t := strings.TrimLeftFunc(text, unicode.IsSpace)
	t = t[:min(len(t), limit)]
	if i := strings.IndexByte(t, '\n'); i >= 0 {
		t = t[:i]
	}
	return strings.TrimSpace(sanitize(t))
}
