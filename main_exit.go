package main

import "talaria/loop/app"

// resumeHint is the line printed after the full screen closes, as Codex
// and Claude Code print one: how to continue the session. Nothing for the
// tour (it is not saved) or a session without a message.
func resumeHint(s *app.Session, demo bool) string {
	if demo || s == nil || s.Record == nil || s.Store == nil || len(s.Agent.History()) == 0 {
		return ""
	}
	return "Resume this session with: talaria -r " + s.Record.ID
}
