package ui

import (
	"strings"

	"charm.land/glamour/v2"
	gansi "charm.land/glamour/v2/ansi"
	"charm.land/lipgloss/v2"
	xansi "github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark/parser"
)

// markdown renders markdown with one glamour renderer per wrap width,
// each built on the first render at that width; the glamour style is
// built on the first render too, so a screen that shows no markdown (and
// a theme switched through) costs nothing here. A TermRenderer is not
// safe for concurrent use; this one is only used on the UI goroutine
// (from Update). The memo is dropped with the whole value on a theme
// change.
//
// The document colour (the style's Document.Color, the answer's text
// colour) is not given to glamour: glamour pads every line of every
// block to the wrap width with spaces in the block's style, each space
// its own styled run, and passes those bytes through each enclosing
// block's writers again, which made the colour most of a render's cost.
// Glamour renders without it, and the colour is put back on each line
// kept (paintFg): on every cell that glamour left without a foreground
// colour, which are exactly the cells that would have inherited it.
// Tables are the exception (glamour draws their rules in the terminal's
// own colour even under a document colour): they are rendered with the
// style as given.
type markdown struct {
	styleOf func() gansi.StyleConfig
	style   *gansi.StyleConfig // as given (code colours named): tables
	text    *gansi.StyleConfig // style without the document colour: all else
	fg      string             // the document colour's SGR sequence, "" if none
	byWidth map[int]*glamour.TermRenderer
	tables  map[int]*glamour.TermRenderer
	// parser finds a text's top-level blocks (render_blocks.go);
	// sentinels memoises the sentinel paragraph's output per width.
	parser    parser.Parser
	sentinels map[sentinelKey]string
	// docInGlamour renders with the document colour given to glamour
	// (the reference the painted render is held to in tests).
	docInGlamour bool
	bytes        int // text handed to glamour so far, for tests and benchmarks
}

func newMarkdown(style gansi.StyleConfig) *markdown {
	return &markdown{style: &style}
}

// lazyMarkdown is a markdown whose style is built by styleOf on first use.
func lazyMarkdown(styleOf func() gansi.StyleConfig) *markdown {
	return &markdown{styleOf: styleOf}
}

// styles builds the two styles once: the code colours registered under
// their own name (render_chroma.go), and the document colour taken out
// of the text style when it is only a colour.
func (md *markdown) styles() {
	if md.text != nil {
		return
	}
	if md.style == nil {
		st := md.styleOf()
		md.style = &st
	}
	st := namedChroma(*md.style)
	md.style = &st
	text := st
	if doc := st.Document.StylePrimitive; !md.docInGlamour && doc.Color != nil && onlyColour(doc) {
		md.fg = xansi.Style{}.ForegroundColor(lipgloss.Color(*doc.Color)).String()
		text.Document.Color = nil
	}
	md.text = &text
}

// onlyColour reports a style primitive that sets a foreground colour
// and nothing else that shows.
func onlyColour(p gansi.StylePrimitive) bool {
	p.Color, p.BlockPrefix, p.BlockSuffix, p.Prefix, p.Suffix, p.Format = nil, "", "", "", "", ""
	return p == gansi.StylePrimitive{}
}

// renderer is the glamour renderer for width w, built on first use; nil
// if glamour refuses the style. table picks the renderer for tables
// (the style as given).
func (md *markdown) renderer(w int, table bool) *glamour.TermRenderer {
	md.styles()
	memo, st := &md.byWidth, md.text
	if table {
		memo, st = &md.tables, md.style
	}
	r := (*memo)[w]
	if r == nil {
		var err error
		// Code in 24-bit colour, the theme's own (the screen downsamples
		// for the terminal): chroma's 256-colour table picks between
		// equally near colours by map order, so the same code came out in
		// two colours from one render to the next.
		r, err = glamour.NewTermRenderer(glamour.WithStyles(*st), glamour.WithWordWrap(w), glamour.WithChromaFormatter("terminal16m"))
		if err != nil {
			return nil
		}
		if *memo == nil {
			*memo = map[int]*glamour.TermRenderer{}
		}
		(*memo)[w] = r
	}
	return r
}

// renderAt returns text as styled lines at most w columns wide, without
// leading or trailing blank lines: glamour's render of the whole text.
// It falls back to plain wrapping if glamour fails. (render is the entry
// point: it renders block by block and gives tables their own width.)
func (md *markdown) renderAt(text string, w int) []string {
	return md.renderWhole(text, w, false)
}

// renderTable is renderAt for a table.
func (md *markdown) renderTable(text string, w int) []string {
	return md.renderWhole(text, w, true)
}

// renderWhole is renderAt, in the style for tables (not painted) when
// table is set: for a text that is or holds a table (see markdown).
func (md *markdown) renderWhole(text string, w int, table bool) []string {
	w = max(8, w)
	if strings.TrimSpace(text) == "" {
		return nil
	}
	out, ok := md.renderRaw(prepareMarkdown(text), w, table)
	if !ok {
		return wrapText(text, w)
	}
	fg := md.fg
	if table {
		fg = ""
	}
	return tidyLines(out, w, fg)
}

// tidyLines splits glamour output, strips the padding after each line
// (closing any style left open), paints it in fg (see paintFg), wraps
// lines wider than w (code) keeping their indentation, and drops blank
// lines at both ends.
func tidyLines(s string, w int, fg string) []string {
	raw := strings.Split(s, "\n")
	out := make([]string, 0, len(raw))
	for _, l := range raw {
		out = fitLine(out, l, w, fg)
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
