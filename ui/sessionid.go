package ui

import (
	"errors"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// shortID is the part of a session id that tells sessions apart. Ids in
// Hermes's form (YYYYMMDD_HHMMSS_<6 hex>) share their date with every
// session of the day, so the short form is the random suffix, which
// /resume accepts like a prefix. Other ids keep their first 8 characters.
func shortID(id string) string {
	if i := strings.LastIndexByte(id, '_'); i >= 0 && i < len(id)-1 {
		return id[i+1:]
	}
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// titleMax is how wide the session title may be in the status line: a
// quarter of the screen, at most 28 columns; under 10, the title is left
// out so the id still fits.
func titleMax(width int) int { return min(28, width/4) }

// sessionLabel is the status line's session item: the title (from the
// first user message, as the store derives it) and the short id.
func (m *Model) sessionLabel() string {
	label := "session " + shortID(m.ses.id)
	if t, tw := m.ses.title, titleMax(m.width); t != "" && tw >= 10 {
		label = ansi.Truncate(t, tw, "…") + " · " + shortID(m.ses.id)
	}
	return label
}

// noteTitle takes the session title from its first user message.
func (m *Model) noteTitle(text string) {
	if m.ses.title == "" {
		m.ses.title = deriveTitle(text)
		m.chromeDirty = true
	}
}

// deriveTitle is the first non-blank line of a message, trimmed and
// capped, like the store's title.
func deriveTitle(text string) string {
	for _, l := range strings.Split(sanitize(text), "\n") {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			return ansi.Truncate(l, 60, "…")
		}
	}
	return ""
}

// screenError is an error that has a wording for the screen, without the
// CLI flags its Error names (a resume reference the store cannot match).
type screenError interface{ ScreenText() string }

// errText is err's message as the screen shows it.
func errText(err error) string {
	var se screenError
	if errors.As(err, &se) {
		return se.ScreenText()
	}
	return err.Error()
}
