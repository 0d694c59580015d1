package app

import (
	"errors"
	"fmt"
)

// Rename sets the current session's title (/rename TITLE): stored at
// once, so /sessions, `talaria -r TITLE` and the resume hint use it. It
// returns the title as stored (on one line).
func (w *Switcher) Rename(title string) (string, error) {
	w.changing.Lock()
	defer w.changing.Unlock()
	s := w.Current()
	switch {
	case s == nil:
		return "", ErrNoSession
	case s.Store == nil:
		return "", ErrNoStore
	}
	if err := s.Store.RenameSession(s.Record.ID, title); err != nil {
		return "", err
	}
	rec, err := s.Store.GetSession(s.Record.ID)
	if err != nil {
		return "", err
	}
	w.mu.Lock()
	s.Record.Title = rec.Title
	w.mu.Unlock()
	return rec.Title, nil
}

// Fork is /fork: it copies the current session into a new one (its
// history, checkpoints, rewinds, todos and timeline: persist.ForkSession)
// and makes the copy current, on the model in use now. The original is
// left as it was, to be resumed later; it refuses while a turn runs (the
// step in flight would be in one of the two only).
func (w *Switcher) Fork(title string) (*Session, error) {
	s := w.Current()
	switch {
	case s == nil:
		return nil, ErrNoSession
	case s.Store == nil:
		return nil, ErrNoStore
	case s.Agent.Busy():
		return nil, errors.New("a turn is running: /stop it first")
	}
	rec, err := s.Store.ForkSession(s.Record.ID, title)
	if err != nil {
		return nil, fmt.Errorf("fork: %w", err)
	}
	f := w.flags
	f.Resume, f.Continue = rec.ID, false
	f.Script.AppendSystemPrompt, f.Script.Fork = "", false
	w.mu.Lock()
	if w.model.name != "" || w.model.provider != "" { // the model /model chose, as /new keeps it
		f.Overrides.Provider, f.Overrides.Model = w.model.provider, w.model.name
	}
	w.mu.Unlock()
	ns, err := w.Switch(f)
	if err != nil {
		// The copy is not opened: leave no half-made session behind.
		_ = s.Store.DeleteSession(rec.ID)
		return nil, fmt.Errorf("fork: %w", err)
	}
	return ns, nil
}
