package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestGoldenHelp: /help fits 60, 80 and 120 columns, every description
// starts in the same column (the long /model row included), and the
// composer keys and the aliases are listed.
func TestGoldenHelp(t *testing.T) {
	for _, w := range []int{60, 80, 120} {
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			h := newHarness(t)
			h.size(w, 80)
			h.command("/help")
			text := h.m.helpText()
			col := -1
			for _, l := range strings.Split(text, "\n") {
				if ansi.StringWidth(l) > w-4 {
					t.Errorf("row wider than the screen: %q", l)
				}
				for _, name := range []string{"/help ", "/model [PROVIDER/]NAME "} {
					if strings.HasPrefix(l, "  "+name) && w >= 80 {
						c := len(l) - len(strings.TrimLeft(l[2+len(name):], " "))
						if col >= 0 && c != col {
							t.Errorf("descriptions start in columns %d and %d", col, c)
						}
						col = c
					}
				}
			}
			contains(t, text, "ctrl+r", "@path", "!command", "/clear", "same as /new")
			golden(t, h.m.View().Content)
		})
	}
}

// TestInterruptingHintClearsWithTheTurn: the "interrupting…" hint goes
// when the turn has ended.
func TestInterruptingHintClearsWithTheTurn(t *testing.T) {
	h := newHarness(t)
	h.startBusy()
	h.key("esc")
	contains(t, h.screen(), "interrupting")
	h.endTurn(1, "")
	if strings.Contains(h.screen(), "interrupting") {
		t.Fatalf("the hint lingers:\n%s", h.screen())
	}
}
