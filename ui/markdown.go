package ui

import (
	"strings"

	"charm.land/glamour/v2"
	gansi "charm.land/glamour/v2/ansi"
	"github.com/yuin/goldmark/parser"
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
	// parser finds a text's top-level blocks (render_blocks.go);
	// sentinels memoises the sentinel paragraph's output per width.
	parser    parser.Parser
	sentinels map[int]string
	named     bool // style's code colours are registered under their own name (render_chroma.go)
	bytes     int  // text handed to glamour so far, for tests and benchmarks
}

func newMarkdown(style gansi.StyleConfig) *markdown {
	return &markdown{style: &style, byWidth: map[int]*glamour.TermRenderer{}}
}

// lazyMarkdown is a markdown whose style is built by styleOf on first use.
func lazyMarkdown(styleOf func() gansi.StyleConfig) *markdown {
	return &markdown{styleOf: styleOf, byWidth: map[int]*glamour.TermRenderer{}}
}

// renderer is the glamour renderer for width w, built on first use; nil
// if glamour refuses the style.
func (md *markdown) renderer(w int) *glamour.TermRenderer {
	r := md.byWidth[w]
	if r == nil {
		if md.style == nil {
			st := md.styleOf()
			md.style = &st
		}
		if !md.named {
			st := namedChroma(*md.style)
			md.style, md.named = &st, true
		}
		var err error
		// Code in 24-bit colour, the theme's own (the screen downsamples
		// for the terminal): chroma's 256-colour table picks between
		// equally near colours by map order, so the same code came out in
		// two colours from one render to the next.
		r, err = glamour.NewTermRenderer(glamour.WithStyles(*md.style), glamour.WithWordWrap(w), glamour.WithChromaFormatter("terminal16m"))
		if err != nil {
			return nil
		}
		md.byWidth[w] = r
	}
	return r
}

// renderAt returns text as styled lines at most w columns wide, without
// leading or trailing blank lines: glamour's render of the whole text.
// It falls back to plain wrapping if glamour fails. (render is the entry
// point: it renders block by block and gives tables their own width.)
func (md *markdown) renderAt(text string, w int) []string {
	w = max(8, w)
	if strings.TrimSpace(text) == "" {
		return nil
	}
	out, ok := md.renderRaw(prepareMarkdown(text), w)
	if !ok {
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
		out = fitLine(out, l, w)
	}
	for len(out) > 0 && blank(out[0]) {
		out = out[1:]
	}
	for len(out) > 0 && blank(out[len(out)-1]) {
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
