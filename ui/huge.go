package ui

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bounds on what one message draws in the transcript, so a huge answer
// (up to agent.max_response_bytes streamed, or any size in a resumed
// session) costs the screen a bounded amount per frame. The pager
// (ctrl+t) has the whole text.
const (
	// messageCap is how much of one message's text the transcript
	// renders: a completed message shows its first messageCap bytes, a
	// streaming one its last, with a marker for the rest.
	messageCap = 64 << 10
	// pieceCap is the most text a streaming answer renders as one
	// markdown block; a longer stretch without a stable boundary (a long
	// code block, a huge paragraph) is cut into pieces of this size.
	pieceCap = 8 << 10
	// tailCap is what is left of the unstable tail, re-rendered every
	// frame, after such a cut.
	tailCap = 4 << 10
	// reasoningTail is how much of a reasoning block shown while it
	// streams (ctrl+o) is wrapped per frame: its last 16 KiB.
	reasoningTail = 16 << 10
)

// piece is a stretch of a streaming answer rendered as one markdown
// block. reopen is the opening line of the code fence the piece starts
// inside, "" if none: it is put back in front so a cut code block still
// renders as code.
type piece struct {
	start, end int
	reopen     string
	lines      []string
}

// chunkCache holds the rendered part of a streaming answer: the text up
// to end, cut at stable boundaries (and, past pieceCap without one, at
// forced ones), each piece rendered once. Only the pieces within the last
// messageCap bytes are kept; the text before them is hidden behind a
// marker.
type chunkCache struct {
	width, gen, epoch int
	scan              boundaryScan
	end               int    // bytes of the text the pieces cover
	reopen            string // the fence open at end, "" if none
	hidden            int    // bytes before the first kept piece
	pieces            []piece
	lines             []string // the kept pieces' lines, joined
	// shift counts the lines taken off the top of the render so far
	// (dropped pieces, less the marker put there); it survives a reset,
	// so the transcript can keep a scrolled-up reader's place.
	shift int
}

// renderStreaming renders the text that became stable since the last
// frame as new pieces, and the unstable tail after them, so a frame costs
// the size of the new text, not of the whole answer. Only complete lines
// decide where the stable part ends (a partial "-" may yet become a list
// item). A new width or theme renders the kept pieces again, once; the
// answer is rendered again when it completes.
func (a *assistantItem) renderStreaming(rc *renderCtx, w int) []string {
	text := a.text()
	c := &a.chunks
	if c.epoch != a.epoch || c.end > len(text) || c.scan.off > len(text)+1 {
		*c = chunkCache{width: w, gen: rc.gen, epoch: a.epoch, scan: newBoundaryScan(0, blockText), shift: c.shift}
	}
	if c.width != w || c.gen != rc.gen {
		c.width, c.gen = w, rc.gen
		for i := range c.pieces {
			c.pieces[i].lines = renderPiece(rc, text, c.pieces[i], w)
		}
		c.join()
	}
	c.scan.feed(text, false)
	if c.scan.best > c.end {
		c.commit(rc, text, c.scan.best, w)
		c.reopen = "" // a stable boundary is outside any fence
	}
	for len(text)-c.end > pieceCap {
		c.commit(rc, text, cutPoint(text, c.end, len(text)-tailCap), w)
	}
	tail := rc.md.render(sanitize(c.reopen+text[c.end:]), w)
	out := make([]string, 0, len(c.lines)+len(tail)+2)
	if c.hidden > 0 {
		out = append(out, rc.st.Muted.Render(fmt.Sprintf("… %s earlier — ctrl+t opens the pager", fmtSize(c.hidden))), "")
	}
	return joinBlocks(append(out, c.lines...), tail)
}

// commit moves the covered part of the text to upto: the new text is
// cut into pieces of at most pieceCap, and those within the last
// messageCap bytes are rendered; pieces that fell out of that window are
// dropped.
func (c *chunkCache) commit(rc *renderCtx, text string, upto, w int) {
	hadMarker := c.hidden > 0
	for c.end < upto {
		e := upto
		if e-c.end > pieceCap {
			e = cutPoint(text, c.end, c.end+pieceCap)
		}
		p := piece{start: c.end, end: e, reopen: c.reopen}
		c.reopen = fenceAfter(text, c.end, e, c.reopen)
		c.end = e
		if len(text)-p.start > messageCap {
			c.hidden = p.end
			continue
		}
		p.lines = renderPiece(rc, text, p, w)
		c.pieces = append(c.pieces, p)
	}
	n := 0
	for n < len(c.pieces) && len(text)-c.pieces[n].start > messageCap {
		c.hidden = c.pieces[n].end
		if len(c.pieces[n].lines) > 0 {
			c.shift += len(c.pieces[n].lines) + 1 // its lines and the blank after them
		}
		n++
	}
	if !hadMarker && c.hidden > 0 {
		c.shift -= 2 // the marker and its blank line
	}
	c.pieces = slices.Delete(c.pieces, 0, n)
	c.join()
}

// join rebuilds the joined lines of the kept pieces.
func (c *chunkCache) join() {
	c.lines = c.lines[:0]
	for _, p := range c.pieces {
		c.lines = joinBlocks(c.lines, p.lines)
	}
}

// topShift is how many lines the answer's renders have taken off its top
// so far (see chunkCache.shift).
func (a *assistantItem) topShift() int { return a.chunks.shift }

func renderPiece(rc *renderCtx, text string, p piece, w int) []string {
	return rc.md.render(sanitize(p.reopen+text[p.start:p.end]), w)
}

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
func headOf(text string) (head string, more int) {
	if len(text) <= messageCap {
		return text, 0
	}
	cut := cutPoint(text, 0, messageCap)
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
