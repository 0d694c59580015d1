package main

import (
	"strings"
	"unicode"

	"talaria/loop/app"
)

// resumeHint is the line printed after the full screen closes, as Codex
// and Claude Code print one: how to continue the session. Nothing for the
// tour (it is not saved) or a session without a message.
func resumeHint(s *app.Session, demo bool) string {
	if demo || s == nil || s.Record == nil || s.Store == nil || !s.Agent.HistoryPending() && len(s.Agent.History()) == 0 {
		return ""
	}
	hint := "Resume this session with: talaria -r " + s.Record.ID
	if rec, err := s.Store.GetSession(s.Record.ID); err == nil && rec.Title != "" {
		title := strings.Map(func(r rune) rune { // printed to the terminal as is
			if unicode.IsControl(r) {
				return -1
			}
			return r
		}, rec.Title)
		hint += " (" + title + ")" // /rename's title, or the first message's
	}
	return hint
}
