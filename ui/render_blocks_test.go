package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"talaria/loop"
	"talaria/themes"
)

// wholeRender is the reference the block renderer must match: glamour's
// render of the whole text, except that each table is rendered alone at
// the width its cells need, one blank line from the text around it (the
// layout the transcript has always used), and so is each top-level code
// block with a line too long for w: at the width its lines need, its
// long lines then wrapped keeping their indentation (glamour would wrap
// them at the margin). It is a reference for a markdown with the
// document colour given to glamour (docInGlamour):
// TestDocumentColourPaintedReadsTheSame holds the painted render to that
// one.
func wholeRender(md *markdown, text string, w int) []string {
	return segmentedRender(md, text, w, func(seg string) bool { return md.codeWidth(seg, w) > w })
}

// segmentedRender is wholeRender with the code blocks for which alone
// holds rendered alone.
func segmentedRender(md *markdown, text string, w int, alone func(seg string) bool) []string {
	w = max(8, w)
	src := prepareMarkdown(text)
	blocks, refs := md.splitBlocks(src)
	// A text cut in pieces keeps its link definitions in each piece.
	text2 := func(seg string) string {
		if refs == "" || strings.TrimSpace(seg) == "" {
			return seg
		}
		return seg + "\n\n" + refs
	}
	var out []string
	add := func(ls []string) {
		if len(ls) == 0 {
			return
		}
		if len(out) > 0 {
			out = append(out, "")
		}
		out = append(out, ls...)
	}
	from := 0
	for _, b := range blocks {
		seg := src[b.start:b.end]
		switch {
		case b.table():
			add(md.renderAt(src[from:b.start], w))
			add(md.renderTable(seg, min(w, tableWidth(tableRows(seg)))))
			from = b.end
		case b.code() && alone(seg):
			add(md.renderAt(text2(src[from:b.start]), w))
			if out, ok := md.renderRaw(seg, md.codeWidth(seg, w), false); ok {
				add(tidyLines(out, w, md.fg))
			}
			from = b.end
		}
	}
	if from > 0 {
		add(md.renderAt(text2(src[from:]), w))
	} else {
		add(md.renderAt(src, w))
	}
	return out
}

// TestCodeBlockAloneReadsAsInWhole: the reference may render a code block
// alone (wholeRender); at a width where no code line is too long, doing
// that for every top-level code block of the corpus gives glamour's
// render of the whole text, line for line: a code block alone is laid
// out as it is among the blocks around it.
func TestCodeBlockAloneReadsAsInWhole(t *testing.T) {
	th, _ := themes.Lookup("dark")
	md := newMarkdown(th.Glamour())
	md.docInGlamour = true
	const w = 200
	for name, text := range corpus(t) {
		want := segmentedRender(md, text, w, func(string) bool { return false })
		got := segmentedRender(md, text, w, func(seg string) bool {
			if md.codeWidth(seg, w) > w {
				t.Fatalf("%s: a code line is wider than %d", name, w)
			}
			return true
		})
		if !sameLines(got, want) {
			t.Errorf("%s: code blocks alone differ from the whole render at %s", name, firstDiff(got, want))
		}
	}
}

// corpus is every answer of testdata/answers by name.
func corpus(t testing.TB) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "answers", "*.md"))
	if err != nil || len(files) < 10 {
		t.Fatalf("corpus: %d files, %v", len(files), err)
	}
	out := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(f)] = sanitize(string(b))
	}
	return out
}

// firstDiff describes where two renders part.
func firstDiff(got, want []string) string {
	for i := range min(len(got), len(want)) {
		if dropNoopPrefix(got[i]) != dropNoopPrefix(want[i]) {
			from := max(0, i-3)
			return fmt.Sprintf("line %d of %d/%d:\n got: %q\nwant: %q\ncontext (want):\n%s", i, len(got), len(want), got[i], want[i],
				ansi.Strip(strings.Join(want[from:min(len(want), i+3)], "\n")))
		}
	}
	return fmt.Sprintf("lengths %d and %d", len(got), len(want))
}

// sameLines reports two renders equal line for line, byte for byte but
// for style codes at a line's start that are reset before anything is
// written (a code block rendered alone ends its last line in them; in
// the whole text they start the next block's first line).
func sameLines(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if dropNoopPrefix(a[i]) != dropNoopPrefix(b[i]) {
			return false
		}
	}
	return true
}

// dropNoopPrefix drops the SGR sequences at the start of l up to the
// last reset among them, when no text comes between.
func dropNoopPrefix(l string) string {
	rest, cut := l, 0
	for strings.HasPrefix(rest, "\x1b[") {
		n := escapeLen(rest)
		if n == 0 || rest[n-1] != 'm' {
			break
		}
		if p := rest[2 : n-1]; p == "" || p == "0" {
			cut = len(l) - len(rest) + n
		}
		rest = rest[n:]
	}
	return l[cut:]
}

// namedTheme is one theme the corpus tests render in.
type namedTheme struct {
	name  string
	theme themes.Theme
}

// corpusThemes is every theme, and plain (no colour).
func corpusThemes(t *testing.T) []namedTheme {
	t.Helper()
	var out []namedTheme
	for _, name := range themes.Names() {
		th, ok := themes.Lookup(name)
		if !ok {
			t.Fatalf("theme %s", name)
		}
		out = append(out, namedTheme{name, th})
	}
	return append(out, namedTheme{"plain", themes.Plain()})
}

// TestBlockRenderMatchesWhole: over the corpus of answers (lists around
// code blocks, numbered lists that go on after a paragraph, tables,
// reference links, adjacent code blocks, quotes, setext headings, HTML,
// wide characters, and a 43 KB and an 86 KB review), in every theme and
// at three widths, the block-by-block render is byte for byte glamour's
// render of the whole text.
func TestBlockRenderMatchesWhole(t *testing.T) {
	texts := corpus(t)
	for _, nt := range corpusThemes(t) {
		theme, th := nt.name, nt.theme
		for _, w := range []int{38, 78, 118} {
			md := newMarkdown(th.Glamour())
			md.docInGlamour = true
			for name, text := range texts {
				if len(text) > 16<<10 && (w != 78 || theme != "dark" && theme != "light") {
					continue // the long answers once per palette kind: they cost seconds under -race
				}
				want := wholeRender(md, text, w)
				got := md.render(text, w)
				for try := 0; try < 2 && !sameLines(got, want); try++ {
					// chroma gives each token match 250 ms; on a loaded
					// machine under -race one can time out and lex a
					// word in two: render both again before failing.
					want, got = wholeRender(md, text, w), md.render(text, w)
				}
				if !sameLines(got, want) {
					t.Errorf("%s, %s, width %d: the block render differs from the whole render at %s", name, theme, w, firstDiff(got, want))
				}
			}
		}
	}
}

// TestStreamedAnswerRendersAsWhole: each answer of the corpus streamed in
// 24-byte deltas, a frame every 100 of them: the last streamed frame and
// the completed answer read as the whole render, and completing the
// answer renders only what was still open (the blocks rendered while it
// streamed are reused). With the document colour given to glamour the
// reference is the whole render; with it painted (as the program runs)
// it is the block render of the whole text.
func TestStreamedAnswerRendersAsWhole(t *testing.T) {
	th, _ := themes.Lookup("dark")
	st := th.Styles()
	for _, inGlamour := range []bool{true, false} {
		for name, text := range corpus(t) {
			md := newMarkdown(th.Glamour())
			md.docInGlamour = inGlamour
			rc := &renderCtx{width: 100, st: &st, md: md}
			a := &assistantItem{streaming: true}
			for i, n := 0, 0; i < len(text); i, n = i+streamChunk, n+1 {
				a.write(text[i:min(len(text), i+streamChunk)])
				if n%100 == 99 {
					a.flush()
					_ = a.render(rc)
				}
			}
			a.flush()
			streamed := a.render(rc)
			ref := newMarkdown(th.Glamour())
			ref.docInGlamour = inGlamour
			want := ref.render(text, 98)
			if inGlamour {
				want = wholeRender(ref, text, 98)
			}
			prefix := func(ls []string) []string {
				for i := range ls {
					ls[i] = strings.TrimPrefix(strings.TrimPrefix(ls[i], rc.st.Accent.Render("● ")), "  ")
				}
				return ls
			}
			if strings.Contains(text, "]: ") { // reference links resolve once the definitions came
				streamed = nil
			}
			if streamed != nil && !sameLines(prefix(streamed), want) {
				t.Errorf("%s (document colour in glamour: %v): the last streamed frame differs from the whole render at %s", name, inGlamour, firstDiff(streamed, want))
			}
			before := rc.md.bytes
			a.set(text)
			a.streaming = false
			a.ver++
			final := prefix(a.render(rc))
			if !sameLines(final, want) {
				t.Errorf("%s (document colour in glamour: %v): the completed answer differs from the whole render at %s", name, inGlamour, firstDiff(final, want))
			}
			if spent := rc.md.bytes - before; len(text) > 16<<10 && spent > len(text)/4 {
				t.Errorf("%s: completing a %d-byte answer rendered %d bytes again", name, len(text), spent)
			}
		}
	}
}

// TestStreamedAnswerShownWhole: the 86 KB answer streamed through the
// screen ends with its last line on screen, not cut at 64 KiB with a
// marker.
func TestStreamedAnswerShownWhole(t *testing.T) {
	clk := &clock{now: t0}
	m := streamModel(t, clk)
	text := corpusAnswer(t, "12-review-86k.md")
	streamThrough(m, clk, text)
	got := ansi.Strip(m.View().Content)
	if !strings.Contains(got, "That is everything I found.") || strings.Contains(got, "opens the pager") {
		t.Fatalf("the answer's last line is not on screen:\n%s", got)
	}
	m.Update(eventsMsg{evs: []loop.Event{turnStarted(2, "again")}})
}
