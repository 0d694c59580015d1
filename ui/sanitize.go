package ui

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// sanitize makes text from the model, tools or the session store safe to
// draw: escape sequences are removed (they could move the cursor, clear
// or retitle the screen, or hide what an approval dialog shows), and so
// are control characters other than newline and tab, including C1
// controls and the bidirectional overrides that can reorder what a line
// seems to say.
func sanitize(s string) string {
	if !needsSanitizing(s) {
		return s
	}
	s = ansi.Strip(s)
	return strings.Map(func(r rune) rune {
		if isHiddenControl(r) {
			return -1
		}
		return r
	}, s)
}

// needsSanitizing reports whether s holds anything sanitize removes or
// replaces (invalid UTF-8, whose stray bytes a terminal may read as C1
// controls, becomes U+FFFD); most text does not, and is returned as it
// is.
func needsSanitizing(s string) bool {
	for _, r := range s {
		if r == '\x1b' || r == utf8.RuneError || isHiddenControl(r) {
			return true
		}
	}
	return false
}

// isHiddenControl reports whether r is a control character that is not
// drawn as itself: C0 and C1 controls but newline and tab, DEL, and the
// bidirectional embedding, override and isolate marks.
func isHiddenControl(r rune) bool {
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
