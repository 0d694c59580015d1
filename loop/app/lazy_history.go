package app

import (
	"context"
	"fmt"

	"talaria/loop/port"
	"talaria/persist"
	"talaria/providers"
)

// screenTail is how many of a session's last messages the screen is
// given when it switches to the session (or opens on it); it pages older
// ones in through Screen.Older as it needs them.
const screenTail = 200

// olderMax bounds one Older page.
const olderMax = 50_000

// resumeLoader is what a resumed session's agent reads its history with
// on first need (loop.Options.LoadHistory), so that opening a long session
// does not hold it: the history it resumes with (compaction snapshot and
// what followed, less rewound turns), dangling calls closed. It is nil,
// and the history is read at open as before, when the session's record
// does not know its turns (a session stored before turn numbers: they are
// counted from the history) or when --record writes the history into its
// header.
func (s *Session) resumeLoader(f Flags) func() ([]providers.Message, error) {
	if f.Record != "" || s.Record.Turns <= 0 {
		return nil
	}
	st, id := s.Store, s.Record.ID
	return func() ([]providers.Message, error) {
		msgs, err := st.ResumeMessages(id)
		if err != nil {
			return nil, err
		}
		return persist.RepairDangling(msgs), nil
	}
}

// View is what the screen shows of the session: its id, backend, the
// tail of its history (Before says how many messages come before it) and
// the tokens it used so far. A session whose resume history is its log as
// logged (no compaction snapshot, no conversation rewind) gives the last
// screenTail messages of the log, read from the store, so its agent need
// not read the rest; another gives the agent's whole history.
func (s *Session) View() port.Session {
	v := port.Session{ID: s.Record.ID, Provider: s.Backend.Provider, Model: s.Backend.Model, Title: s.Record.Title, Usage: s.StoredUsage()}
	if s.Store != nil {
		if plain, err := s.Store.PlainResume(s.Record.ID); err == nil && plain {
			page, err := s.Store.LogPageBefore(s.Record.ID, -1, screenTail)
			if err == nil {
				v.History, v.Before = page.Messages, page.From
				return v
			}
			s.log("WARN the screen's tail of session " + s.Record.ID + ": " + err.Error())
		}
	}
	v.History = s.Agent.History()
	return v
}

// Older returns about n of the messages of session id before index
// before, as the screen pages them in: from the message log, the index
// space of the tail View gave.
func (p *Screen) Older(ctx context.Context, id string, before, n int) (port.Page, error) {
	if err := ctx.Err(); err != nil {
		return port.Page{}, err
	}
	if before <= 0 || n <= 0 {
		return port.Page{From: max(before, 0)}, nil
	}
	st, err := p.w.Store()
	if err != nil {
		return port.Page{}, err
	}
	page, err := st.LogPageBefore(id, before, min(n, olderMax))
	if err != nil {
		return port.Page{}, fmt.Errorf("reading the session's earlier messages: %w", err)
	}
	return port.Page{Messages: page.Messages, From: page.From}, nil
}
