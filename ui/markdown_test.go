package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"talaria/themes"
)

func TestTrimStyledRight(t *testing.T) {
	cases := map[string]string{
		"plain   ":                               "plain",
		"\x1b[1mbold\x1b[m\x1b[38;5;252m \x1b[m": "\x1b[1mbold",
		"I am":                                   "I am",
		"[m":                                     "[m",
		"   ":                                    "",
	}
	for in, want := range cases {
		if got := trimStyledRight(in); got != want {
			t.Errorf("trimStyledRight(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMarkdownRenderFitsWidth(t *testing.T) {
	th, _ := themes.Lookup("dark")
	md := newMarkdown(th.Glamour())
	text := "# Heading\n\nA paragraph with **bold** text that is long enough to wrap at forty columns.\n\n```go\nfunc veryLongFunctionName(argumentNumberOne int, argumentNumberTwo string) error { return nil }\n```\n"
	lines := md.render(text, 40)
	if len(lines) == 0 || ansi.Strip(lines[0]) == "" || ansi.Strip(lines[len(lines)-1]) == "" {
		t.Fatalf("blank edges not trimmed: %q", lines)
	}
	for _, l := range lines {
		if w := ansi.StringWidth(l); w > 40 {
			t.Errorf("line is %d wide: %q", w, ansi.Strip(l))
		}
	}
	joined := ansi.Strip(strings.Join(lines, "\n"))
	for _, want := range []string{"# Heading", "bold", "veryLongFunctionName"} {
		if !strings.Contains(joined, want) {
			t.Errorf("lost %q", want)
		}
	}
	if md.render("   ", 40) != nil {
		t.Error("blank text should render to nothing")
	}
	// One for the width, one for the width the long code line needs
	// (codeWidth), so glamour does not wrap it.
	if len(md.byWidth) != 2 {
		t.Errorf("renderers memoised per width: %d", len(md.byWidth))
	}
}

func TestStreamingRenderMatchesFinal(t *testing.T) {
	rc := testCtx(60)
	text := "First paragraph.\n\nSecond paragraph with `code`.\n\nThird, still arriving"
	a := &assistantItem{streaming: true}
	a.write(text)
	a.flush()
	streamed := plain(strings.Join(a.render(rc), "\n"))
	if a.stream.done == 0 {
		t.Error("finished blocks not kept")
	}
	a.streaming = false
	a.ver++
	final := plain(strings.Join(a.render(rc), "\n"))
	if streamed != final {
		t.Errorf("streaming render differs from the final one:\n%s\n---\n%s", streamed, final)
	}
}

// TestStreamingRendersNewTextOnly: a streamed answer renders each stable
// chunk once, plus the short unstable tail per frame, so the text handed
// to glamour grows linearly with the answer, not quadratically; and the
// streamed frames look like the final render.
func TestStreamingRendersNewTextOnly(t *testing.T) {
	rc := testCtx(80)
	a := &assistantItem{streaming: true}
	var frames int
	for i := range 200 {
		p := benchParagraph(i)
		for _, part := range []string{p[:len(p)/2], p[len(p)/2:]} { // two frames per paragraph
			a.write(part)
			a.flush()
			_ = a.render(rc)
			frames++
		}
	}
	n := len(a.text())
	if rc.md.bytes > 5*n { // each chunk once, plus a tail of a paragraph or two per frame
		t.Errorf("%d frames of a %d-byte answer rendered %d bytes (%.1f× the answer)", frames, n, rc.md.bytes, float64(rc.md.bytes)/float64(n))
	}
	streamed := plain(strings.Join(a.render(rc), "\n"))
	a.streaming = false
	a.ver++
	if final := plain(strings.Join(a.render(rc), "\n")); streamed != final {
		t.Errorf("streamed frame differs from the final render:\n%s\n---\n%s", streamed, final)
	}
}

// TestStreamingChunksFollowWidthAndReplacement: a new width re-renders the
// stable part at that width; replacing the text drops the chunks.
func TestStreamingChunksFollowWidthAndReplacement(t *testing.T) {
	a := &assistantItem{streaming: true}
	a.write("First paragraph, long enough to wrap when the screen is narrow.\n\nSecond.\n\nThird")
	a.flush()
	wide := plain(strings.Join(a.render(testCtx(80)), "\n"))
	narrow := plain(strings.Join(a.render(testCtx(30)), "\n"))
	if strings.Count(narrow, "\n") <= strings.Count(wide, "\n") {
		t.Errorf("the stable part was not re-wrapped:\n%s", narrow)
	}
	a.set("Other text.\n\nAll new.\n\nTail")
	contains(t, plain(strings.Join(a.render(testCtx(80)), "\n")), "Other text.", "All new.", "Tail")
	if got := plain(strings.Join(a.render(testCtx(80)), "\n")); strings.Contains(got, "First") {
		t.Errorf("replaced text still shown:\n%s", got)
	}
}
