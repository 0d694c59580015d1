package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// userItem is a message the user sent, or a steer delivered mid-turn.
type userItem struct {
	text  string
	steer bool
}

func (u *userItem) version() int { return 0 }
func (u *userItem) live() bool   { return false }

func (u *userItem) render(rc *renderCtx) []string {
	prefix, body := rc.st.UserPrompt.Render("› "), rc.st.UserText
	text, more := headOf(u.text)
	if u.steer {
		prefix, body = rc.st.UserPrompt.Render("↳ "), rc.st.Steer
		text = "steer: " + text
	}
	lines := wrapText(text, rc.width-2)
	for i, l := range lines {
		p := "  "
		if i == 0 {
			p = prefix
		}
		lines[i] = p + body.Render(l)
	}
	if more > 0 {
		lines = append(lines, "  "+moreMarker(rc, more))
	}
	return lines
}

// streamText accumulates streamed text. Deltas are appended without
// re-rendering; flush makes them visible (bumping the version) and runs
// on the frame tick, so a streaming block renders at most once per frame.
type streamText struct {
	buf     strings.Builder
	whole   string // the text set whole (kept, not copied); buf is empty then
	flushed int
	ver     int
	epoch   int // bumped when set replaces the text: caches of it are stale
}

func (s *streamText) write(t string) {
	if s.whole != "" {
		s.buf.WriteString(s.whole)
		s.whole = ""
	}
	s.buf.WriteString(t)
}

func (s *streamText) all() string {
	if s.whole != "" {
		return s.whole
	}
	return s.buf.String()
}

// set replaces the whole text (the authoritative text of a completed
// message).
func (s *streamText) set(t string) {
	if s.all() == t {
		s.flush()
		return
	}
	s.buf.Reset()
	s.whole = t
	s.epoch++
	s.flush()
}

// flush reports whether new text became visible.
func (s *streamText) flush() bool {
	n := len(s.all())
	if n == s.flushed {
		return false
	}
	s.flushed = n
	s.ver++
	return true
}

func (s *streamText) text() string { return s.all()[:s.flushed] }

// assistantItem is the model's answer, rendered as markdown.
type assistantItem struct {
	streamText
	streaming bool
	note      string // shown under the answer, e.g. "interrupted"
	stream    streamRender
	cache     blockCache
	// capBytes, when set, replaces answerCap: tests of the cap set it
	// small so they need not stream megabytes.
	capBytes int
}

func (a *assistantItem) version() int { return a.ver }
func (a *assistantItem) live() bool   { return false }

func (a *assistantItem) render(rc *renderCtx) []string {
	w := rc.width - 2
	var lines []string
	if a.streaming {
		lines = a.renderStreaming(rc, w)
	} else {
		head, more := headCap(a.text(), a.limit())
		a.cache.reset(w, rc.gen)
		lines = rc.md.renderCached(sanitize(head), w, &a.cache)
		// The blocks streamed are reused once, here; the cache would
		// otherwise keep a copy of the text for as long as the session.
		a.cache, a.stream = blockCache{}, streamRender{shift: a.stream.shift}
		if more > 0 {
			lines = append(lines, "", moreMarker(rc, more))
		}
	}
	if a.note != "" {
		lines = append(lines, rc.st.Muted.Render("("+a.note+")"))
	}
	for i, l := range lines {
		p := "  "
		if i == 0 {
			p = rc.st.Accent.Render("● ")
		}
		lines[i] = p + l
	}
	return lines
}

// joinBlocks appends block b to lines, a blank line between them.
func joinBlocks(lines, b []string) []string {
	if len(lines) > 0 && len(b) > 0 {
		lines = append(lines, "")
	}
	return append(lines, b...)
}

// reasoningItem is the model's visible thinking: one line by default,
// the whole text when reasoning is shown (Ctrl+O).
type reasoningItem struct {
	streamText
	streaming bool
	words     wordCount
}

func (r *reasoningItem) version() int { return r.ver }
func (r *reasoningItem) live() bool   { return false }

func (r *reasoningItem) render(rc *renderCtx) []string {
	text := r.text()
	words := r.words.count(text, r.epoch)
	label := fmt.Sprintf("thought · %d words", words)
	if r.streaming {
		label = fmt.Sprintf("thinking… %d words", words)
	}
	if !rc.showReasoning {
		first := firstLine(text, 4*rc.width+64)
		line := "∴ " + label
		if first != "" {
			line += " — " + first
		}
		return []string{rc.st.Reasoning.Render(ansi.Truncate(line, max(1, rc.width), "…"))}
	}
	out := []string{rc.st.Reasoning.Render("∴ " + label + " (ctrl+o hides)")}
	shown, hidden, more := text, 0, 0
	if r.streaming {
		shown, hidden = tailOf(text, reasoningTail)
	} else {
		shown, more = headOf(text)
	}
	if hidden > 0 {
		out = append(out, rc.st.Faint.Render("│ ")+rc.st.Muted.Render(fmt.Sprintf("… %s earlier — ctrl+t opens the pager", fmtSize(hidden))))
	}
	for _, l := range wrapText(strings.TrimSpace(sanitize(shown)), rc.width-2) {
		out = append(out, rc.st.Faint.Render("│ ")+rc.st.Reasoning.Render(l))
	}
	if more > 0 {
		out = append(out, rc.st.Faint.Render("│ ")+moreMarker(rc, more))
	}
	return out
}

// noticeKind picks a notice's glyph and colour.
type noticeKind int

const (
	noticeInfo noticeKind = iota
	noticeMuted
	noticeOK
	noticeWarn
	noticeError
)

// noticeItem is a line from the screen itself: help, errors, turn
// summaries, retries and the like.
type noticeItem struct {
	kind noticeKind
	text string
}

func (n *noticeItem) version() int { return 0 }
func (n *noticeItem) live() bool   { return false }

func (n *noticeItem) render(rc *renderCtx) []string {
	glyph, style := "• ", rc.st.Info
	switch n.kind {
	case noticeMuted:
		glyph, style = "· ", rc.st.Muted
	case noticeOK:
		glyph, style = "✓ ", rc.st.Success
	case noticeWarn:
		glyph, style = "⚠ ", rc.st.Warning
	case noticeError:
		glyph, style = "✗ ", rc.st.Error
	}
	lines := wrapText(n.text, rc.width-2)
	for i, l := range lines {
		p := "  "
		if i == 0 {
			p = style.Render(glyph)
		}
		lines[i] = p + style.Render(l)
	}
	return lines
}

// wrapText wraps plain text to w columns, keeping its line breaks. The
// text is sanitized first: escape sequences and control characters are
// dropped.
func wrapText(s string, w int) []string {
	w = max(1, w)
	s = strings.ReplaceAll(sanitize(strings.ReplaceAll(s, "\r\n", "\n")), "\t", "    ")
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if ansi.StringWidth(line) <= w {
			out = append(out, line)
			continue
		}
		out = append(out, strings.Split(ansi.Wrap(line, w, ""), "\n")...)
	}
	return out
}
