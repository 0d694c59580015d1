package ui

import (
	"fmt"
	"strings"
	"testing"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

// cellsOf is a styled line as the terminal shows it: one cell per
// column.
func cellsOf(l string) uv.Line {
	ls := uv.NewStyledString(l).Lines(ansi.GraphemeWidth)
	if len(ls) == 0 {
		return nil
	}
	return ls[0]
}

// sameToTheEye reports where two styled lines show differently, "" if
// they do not: each cell's text and style must match, except the
// foreground of a blank cell that nothing draws (no underline,
// strikethrough or reverse), which cannot be seen. Blank cells past the
// end of the shorter line count as unstyled blanks.
func sameToTheEye(a, b string) string {
	ca, cb := cellsOf(a), cellsOf(b)
	for i := range max(len(ca), len(cb)) {
		x, y := cellAt(ca, i), cellAt(cb, i)
		if x.Content != y.Content {
			return fmt.Sprintf("column %d: %q against %q", i, x.Content, y.Content)
		}
		sx, sy := x.Style, y.Style
		if strings.TrimSpace(x.Content) == "" && !draws(sx) && !draws(sy) {
			sx.Fg, sy.Fg = nil, nil
		}
		if !sx.Equal(&sy) {
			return fmt.Sprintf("column %d (%q): style %q against %q", i, x.Content, sx.String(), sy.String())
		}
	}
	return ""
}

func cellAt(l uv.Line, i int) uv.Cell {
	if i < len(l) {
		return l[i]
	}
	return uv.Cell{Content: " ", Width: 1}
}

// draws reports a style that draws on a blank cell in its foreground.
func draws(s uv.Style) bool {
	return s.Underline != ansi.UnderlineNone || s.Attrs&(uv.AttrStrikethrough|uv.AttrReverse) != 0
}

// TestDocumentColourPaintedReadsTheSame: glamour renders without the
// document colour and the UI paints it on what it keeps (paintFg); over
// the corpus, in every theme and at three widths, that render shows
// exactly what glamour's render with the document colour shows: the
// same text, and every visible cell in the same colours and attributes.
func TestDocumentColourPaintedReadsTheSame(t *testing.T) {
	texts := corpus(t)
	for _, nt := range corpusThemes(t) {
		theme, th := nt.name, nt.theme
		for _, w := range []int{38, 78, 118} {
			painted := newMarkdown(th.Glamour())
			ref := newMarkdown(th.Glamour())
			ref.docInGlamour = true
			for name, text := range texts {
				if len(text) > 16<<10 && (w != 78 || theme != "dark" && theme != "light") {
					continue // the long answers once per palette kind
				}
				got, want := painted.render(text, w), ref.render(text, w)
				if len(got) != len(want) {
					t.Errorf("%s, %s, width %d: %d lines against %d", name, theme, w, len(got), len(want))
					continue
				}
				for i := range got {
					if d := sameToTheEye(got[i], want[i]); d != "" {
						t.Errorf("%s, %s, width %d, line %d: %s\n got: %q\nwant: %q", name, theme, w, i, d, got[i], want[i])
						break
					}
				}
			}
		}
	}
}

// TestPaintFg: the document colour goes on the text that has none, after
// resets and a default-foreground code, and not inside a colour's own
// parameters (a 0 among R;G;B is not a reset).
func TestPaintFg(t *testing.T) {
	const fg = "\x1b[38;2;1;2;3m"
	for _, c := range []struct{ in, want string }{
		{"plain", fg + "plain"},
		{"a\x1b[1mb\x1b[mc", fg + "a\x1b[1mb\x1b[m" + fg + "c"},
		{"\x1b[38;2;0;0;0mx\x1b[0m y", "\x1b[38;2;0;0;0mx\x1b[0m" + fg + " y"},
		{"\x1b[48;5;0mx\x1b[39my", "\x1b[48;5;0m" + fg + "x\x1b[39m" + fg + "y"},
		{"\x1b[31mx\x1b[m\x1b[32my", "\x1b[31mx\x1b[m\x1b[32my"},
		{"\x1b[38:2::9:9:9mx\x1b[1;0;4my", "\x1b[38:2::9:9:9mx\x1b[1;0;4m" + fg + "y"},
	} {
		if got := paintFg(c.in, fg); got != c.want {
			t.Errorf("paintFg(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
