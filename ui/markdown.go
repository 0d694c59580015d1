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
// (closing any style left open), hard-wraps lines wider than w (code) and
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
			out = append(out, strings.Split(ansi.Hardwrap(t, w, true), "\n")...)
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
func stableBoundary(text string) int { return stableBoundaryFrom(text, 0, blockText) }

// stableBoundaryFrom is stableBoundary for a text whose first from bytes
// are known to be stable: from is 0 or a boundary found before in a
// shorter version of the text, and prev is lastKind(text[:from]). It
// scans only text[from:], and returns from when there is no later
// boundary.
func stableBoundaryFrom(text string, from int, prev blockKind) int {
	inFence := false
	best, blankAt := from, -1
	splits := func(next blockKind) bool {
		return blankAt >= 0 && next != blockIndent && (next == blockText || next != prev)
	}
	for off := from; off < len(text); {
		end := strings.IndexByte(text[off:], '\n')
		if end < 0 {
			end = len(text) - off
		}
		line := text[off : off+end]
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			if !inFence && splits(kindOf(line)) {
				best = blankAt
			}
			inFence, blankAt, prev = !inFence, -1, blockText
		case inFence:
		case strings.TrimSpace(line) == "":
			if blankAt < 0 {
				blankAt = off
			}
		default:
			k := kindOf(line)
			if splits(k) {
				best = blankAt
			}
			blankAt, prev = -1, k
		}
		off += end + 1
	}
	return best
}

// lastKind is the kind stableBoundary's scan has seen last at the end of
// a stable prefix: that of its last non-blank line, text after a fence.
func lastKind(prefix string) blockKind {
	for end := len(prefix); end > 0; {
		start := strings.LastIndexByte(prefix[:end], '\n') + 1
		line := prefix[start:end]
		end = start - 1
		if strings.TrimSpace(line) == "" {
			continue
		}
		if t := strings.TrimLeft(line, " "); strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			return blockText
		}
		return kindOf(line)
	}
	return blockText
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
