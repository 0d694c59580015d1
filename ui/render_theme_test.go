package ui

import (
	"fmt"
	"image/color"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"talaria/providers"
	"talaria/themes"
)

// sgrFg is the 24-bit foreground sequence of a colour.
func sgrFg(c color.Color) string {
	r, g, b, _ := c.RGBA()
	return fmt.Sprintf("38;2;%d;%d;%dm", r>>8, g>>8, b>>8)
}

// codeLine is the transcript line showing the replayed answer's code.
func codeLine(t *testing.T, h *harness) string {
	t.Helper()
	for _, l := range h.m.tr.lines(len(h.m.tr.entries)-2, h.m.renderCtx()) {
		if strings.Contains(l, "return") && strings.Contains(l, "nil") {
			return l
		}
	}
	t.Fatalf("no code line in the replayed answer")
	return ""
}

// TestResumedCodeFollowsLightBackground (issue 24, defect 5): a resumed
// session's answers render (dark, the default) before the terminal says
// its background is light; once it does, the replayed code block is drawn
// with the light palette, not the dark one the first render left behind.
func TestResumedCodeFollowsLightBackground(t *testing.T) {
	h := newHarness(t, func(o *Options) {
		o.NoColor = false
		o.History = []providers.Message{
			{Role: providers.RoleUser, Content: "show me"},
			{Role: providers.RoleAssistant, Content: "Here:\n\n```go\nfunc f() error { return nil }\n```\n"},
		}
	})
	dark, _ := themes.Lookup("dark")
	light, _ := themes.Lookup("light")
	before := codeLine(t, h)
	h.send(tea.BackgroundColorMsg{Color: lightGrey{}})
	l := codeLine(t, h)
	if l == before {
		t.Fatalf("the replayed code block is drawn as before the background was known: %q", l)
	}
	if !strings.Contains(before, sgrFg(dark.Keyword)) {
		t.Errorf("the dark render does not use the dark keyword colour %s: %q", sgrFg(dark.Keyword), before)
	}
	if !strings.Contains(l, sgrFg(light.Keyword)) || strings.Contains(l, sgrFg(dark.Keyword)) {
		t.Errorf("the replayed code block keeps the dark palette on a light background: %q (light keyword %s)", l, sgrFg(light.Keyword))
	}
}
