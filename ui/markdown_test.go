package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"talaria/themes"
)

func TestStableBoundary(t *testing.T) {
	cases := []struct {
		name, text string
		want       string // the stable prefix
	}{
		{"none", "just one paragraph", ""},
		{"paragraphs", "one\n\ntwo\n\nthr", "one\n\ntwo\n"},
		{"open fence", "intro\n\n```go\nx := 1\n\ny := 2", "intro\n"},
		{"closed fence", "intro\n\n```go\nx := 1\n\ny := 2\n```\n\nafter", "intro\n\n```go\nx := 1\n\ny := 2\n```\n"},
		{"list continues", "intro\n\n- a\n\n- b", "intro\n"},
		{"numbered continues", "intro\n\n1. a\n\n2. b", "intro\n"},
		{"indented continues", "para\n\n    code", ""},
	}
	for _, c := range cases {
		got := c.text[:stableBoundary(c.text)]
		if got != c.want {
			t.Errorf("%s: prefix = %q, want %q", c.name, got, c.want)
		}
	}
}

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
	if len(md.byWidth) != 1 {
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
	a.streaming = false
	a.ver++
	final := plain(strings.Join(a.render(rc), "\n"))
	if streamed != final {
		t.Errorf("streaming render differs from the final one:\n%s\n---\n%s", streamed, final)
	}
	if a.prefix.n == 0 {
		t.Error("stable prefix not cached")
	}
}
