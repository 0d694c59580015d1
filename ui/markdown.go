package ui

import (
	"strings"

	"charm.land/glamour/v2"
	gansi "charm.land/glamour/v2/ansi"
	"github.com/charmbracelet/x/ansi"
)

// markdown renders markdown with one glamour renderer per wrap width,
// each built on the first render at that width; the glamour style is
// built on the first render too, so a screen that shows no markdown (and
// a theme switched through) costs nothing here. A TermRenderer is not
// safe for concurrent use; this one is only used on the UI goroutine
// (from Update). The memo is dropped with the whole value on a theme
// change.
type markdown struct {
	styleOf func() gansi.StyleConfig
	style   *gansi.StyleConfig
	byWidth map[int]*glamour.TermRenderer
	bytes   int // text handed to glamour so far, for tests and benchmarks
}

func newMarkdown(style gansi.StyleConfig) *markdown {
	return &markdown{style: &style, byWidth: map[int]*glamour.TermRenderer{}}
}

// lazyMarkdown is a markdown whose style is built by styleOf on first use.
func lazyMarkdown(styleOf func() gansi.StyleConfig) *markdown {
	return &markdown{styleOf: styleOf, byWidth: map[int]*glamour.TermRenderer{}}
}

// renderAt returns text as styled lines at most w columns wide, without
// leading or trailing blank lines. It falls back to plain wrapping if
// glamour fails. (render is the entry point: it gives tables their own
// width.)
func (md *markdown) renderAt(text string, w int) []string {
	w = max(8, w)
	if strings.TrimSpace(text) == "" {
		return nil
	}
	r := md.byWidth[w]
	if r == nil {
		if md.style == nil {
			st := md.styleOf()
			md.style = &st
		}
		var err error
		r, err = glamour.NewTermRenderer(glamour.WithStyles(*md.style), glamour.WithWordWrap(w))
		if err != nil {
			return wrapText(text, w)
		}
		md.byWidth[w] = r
	}
	md.bytes += len(text)
	out, err := r.Render(prepareMarkdown(text))
	if err != nil {
		return wrapText(text, w)
	}
	return tidyLines(out, w)
}

// tidyLines splits glamour output, strips the padding after each line
// (closing any style left open), wraps lines wider than w (code) keeping
// their indentation, and
// drops blank lines at both ends.
func tidyLines(s string, w int) []string {
	raw := strings.Split(s, "\n")
	out := make([]string, 0, len(raw))
	for _, l := range raw {
		t := trimStyledRight(l)
		if strings.Contains(t, "\x1b[") {
			t += "\x1b[m"
		}
		if ansi.StringWidth(t) > w {
			out = append(out, wrapKeepIndent(t, w)...)
			continue
		}
		out = append(out, t)
	}
	for len(out) > 0 && ansi.Strip(out[0]) == "" {
		out = out[1:]
	}
	for len(out) > 0 && ansi.Strip(out[len(out)-1]) == "" {
		out = out[:len(out)-1]
	}
	return out
}

// trimStyledRight removes the styled padding glamour appends to a line:
// trailing spaces and the SGR sequences around them.
func trimStyledRight(s string) string {
	for len(s) > 0 {
		switch c := s[len(s)-1]; {
		case c == ' ' || c == '\t':
			s = s[:len(s)-1]
		case c == 'm':
			i := len(s) - 2
			for i >= 0 && (s[i] >= '0' && s[i] <= '9' || s[i] == ';' || s[i] == ':') {
				i--
			}
			if i < 1 || s[i] != '[' || s[i-1] != '\x1b' {
				return s
			}
			s = s[:i-1]
		default:
			return s
		}
	}
	return s
}

// stableBoundary returns the byte offset where the stable part of a
// streaming markdown text ends: the last blank line outside a code fence
// that does not split a list, table, quote or indented block. Text before
// it renders the same however the stream goes on. It returns 0 when there
// is none.
func stableBoundary(text string) int {
	s := newBoundaryScan(0, blockText)
	s.feed(text, true)
	return s.best
}

// boundaryScan is stableBoundary's scan kept between frames, so a
// streaming answer is scanned once however often it is redrawn: off is
// where it stopped (a line start), best the last stable boundary found.
type boundaryScan struct {
	off, best, blankAt int
	inFence            bool
	prev               blockKind
}

func newBoundaryScan(from int, prev blockKind) boundaryScan {
	return boundaryScan{off: from, best: from, blankAt: -1, prev: prev}
}

// feed scans text[s.off:], a longer version of the text scanned so far:
// its complete lines, and with partial the last unfinished line too.
func (s *boundaryScan) feed(text string, partial bool) {
	splits := func(next blockKind) bool {
		return s.blankAt >= 0 && next != blockIndent && (next == blockText || next != s.prev)
	}
	for s.off < len(text) {
		end := strings.IndexByte(text[s.off:], '\n')
		if end < 0 {
			if !partial {
				return
			}
			end = len(text) - s.off
		}
		line := text[s.off : s.off+end]
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			if !s.inFence && splits(kindOf(line)) {
				s.best = s.blankAt
			}
			s.inFence, s.blankAt, s.prev = !s.inFence, -1, blockText
		case s.inFence:
		case strings.TrimSpace(line) == "":
			if s.blankAt < 0 {
				s.blankAt = s.off
			}
		default:
			k := kindOf(line)
			if splits(k) {
				s.best = s.blankAt
			}
			s.blankAt, s.prev = -1, k
		}
		s.off += end + 1
	}
}

// blockKind classifies a markdown line for stableBoundary.
type blockKind int

const (
	blockText blockKind = iota
	blockList
	blockTable
	blockQuote
	blockIndent
)

// kindOf tells which kind of block a line starts or continues.
func kindOf(line string) blockKind {
	switch {
	case line == "":
		return blockText
	case line[0] == ' ' || line[0] == '\t':
		return blockIndent
	case line[0] == '|':
		return blockTable
	case line[0] == '>':
		return blockQuote
	case len(line) > 1 && (line[0] == '-' || line[0] == '*' || line[0] == '+') && line[1] == ' ':
		return blockList
	}
	i := 0
	for i < len(line) && line[i] >= '0' && line[i] <= '9' {
		i++
	}
	if i > 0 && i < len(line) && (line[i] == '.' || line[i] == ')') {
		return blockList
	}
	return blockText
}
