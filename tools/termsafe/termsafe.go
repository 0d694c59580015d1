// Package termsafe makes text from the model, tools, providers or the
// session store safe to write to a terminal. The TUI and headless mode
// share it, so the two cannot disagree on what reaches the screen; it
// lives under tools so that both ui and loop/app may import it.
package termsafe

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// String makes s safe to draw: escape sequences are removed (they could
// move the cursor, clear or retitle the screen, write the clipboard with
// OSC 52, or hide what an approval dialog shows), and so are control
// characters other than newline and tab, including C1 controls and the
// bidirectional overrides that can reorder what a line seems to say.
// Invalid UTF-8, whose stray bytes a terminal may read as C1 controls,
// becomes U+FFFD. Text that needs none of this is returned as it is.
func String(s string) string {
	if !Needed(s) {
		return s
	}
	s = ansi.Strip(strings.ToValidUTF8(s, "\uFFFD"))
	return strings.Map(func(r rune) rune {
		if HiddenControl(r) {
			return -1
		}
		return r
	}, s)
}

// Needed reports whether s holds anything String removes or replaces;
// most text does not.
func Needed(s string) bool {
	for _, r := range s {
		if r == '\x1b' || r == utf8.RuneError || HiddenControl(r) {
			return true
		}
	}
	return false
}

// HiddenControl reports whether r is a control character that is not
// drawn as itself: C0 and C1 controls but newline and tab, DEL, and the
// bidirectional embedding, override and isolate marks.
func HiddenControl(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r >= 0x7f && r < 0xa0:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}
