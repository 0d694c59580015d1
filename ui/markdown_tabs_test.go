package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"talaria/themes"
)

// TestFencedTabsRenderIndented: Go code with tab indentation keeps its
// shape on screen (tab stop 4), for every theme's renderer.
func TestFencedTabsRenderIndented(t *testing.T) {
	text := "Here:\n\n```go\nfunc f() {\n\tif x {\n\t\treturn\n\t}\n}\n```\n"
	for _, name := range []string{"dark", "light"} {
		th, _ := themes.Lookup(name)
		md := newMarkdown(th.Glamour())
		got := ansi.Strip(strings.Join(md.render(text, 60), "\n"))
		for _, want := range []string{"    if x {", "        return", "    }"} {
			if !strings.Contains(got, want) {
				t.Errorf("%s: missing %q in:\n%s", name, want, got)
			}
		}
	}
	plain := newMarkdown(themes.Plain().Glamour())
	if got := ansi.Strip(strings.Join(plain.render(text, 60), "\n")); !strings.Contains(got, "        return") {
		t.Errorf("plain theme lost the tabs:\n%s", got)
	}
}

func TestExpandFencedTabs(t *testing.T) {
	cases := []struct{ in, want string }{
		{"a\tb", "a\tb"}, // outside a fence: untouched
		{"```\n\tx\n```\n\ty", "```\n    x\n```\n\ty"},
		{"~~~~\nab\tc\n~~~\n\td\n~~~~\n", "~~~~\nab  c\n~~~\n    d\n~~~~\n"}, // a shorter fence does not close
		{"```\n界\tz\n```", "```\n界  z\n```"},                                 // wide runes count two
	}
	for _, c := range cases {
		if got := expandFencedTabs(c.in); got != c.want {
			t.Errorf("expandFencedTabs(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
