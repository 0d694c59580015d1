package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"talaria/loop"
	"talaria/persist"
	"talaria/providers"
	"talaria/tools"
)

// openRecord creates or loads the session record and its history: a new
// session gets a freshly built system prompt; a resumed one has dangling
// tool calls closed and its prompt restored (or built) by restorePrompt.
func (s *Session) openRecord(f Flags) ([]providers.Message, error) {
	var rec *persist.Session
	var err error
	switch {
	case f.Resume != "":
		rec, err = s.Store.ResolveSession(f.Resume)
		if err != nil {
			return nil, &UsageError{Err: &ResumeError{Ref: f.Resume, Err: err}}
		}
	case f.Continue:
		rec, err = s.Store.LatestSession(s.Cwd)
		if err != nil && !errors.Is(err, persist.ErrNotFound) {
			return nil, &UsageError{Err: err}
		}
	}
	if rec == nil {
		return nil, s.createRecord(f.Script.AppendSystemPrompt)
	}
	if f.Script.Fork {
		return s.forkRecord(rec, f.Script.AppendSystemPrompt)
	}
	if f.Script.AppendSystemPrompt != "" {
		return nil, usage("--append-system-prompt applies to new sessions only: session %s replays its stored system prompt byte for byte (add --fork-session to continue it in a new session with the text appended)", rec.ID)
	}
	s.Resumed, s.Record = true, rec
	if n, err := s.Store.CloseDangling(rec.ID); err != nil {
		return nil, &UsageError{Err: err}
	} else if n > 0 {
		s.log(fmt.Sprintf("INFO resume closed %d dangling tool call(s) session=%s", n, rec.ID))
	}
	if err := s.restorePrompt(); err != nil {
		return nil, err
	}
	// The agent reads the history on first need: opening holds none of it.
	if s.loadLater = s.resumeLoader(f); s.loadLater != nil {
		return nil, nil
	}
	// A compacted session resumes from its snapshot plus what came after:
	// the cost does not grow with the length of the log.
	msgs, err := s.Store.ResumeMessages(rec.ID)
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	return persist.RepairDangling(msgs), nil
}

func (s *Session) createRecord(appendText string) error {
	return s.createRecordPrompt(withAppendedPrompt(s.buildPrompt(time.Now()), appendText))
}

// createRecordPrompt creates a new leased session with prompt.
func (s *Session) createRecordPrompt(prompt string) error {
	root := gitRoot(s.Cwd)
	rec := &persist.Session{Cwd: s.Cwd, Provider: s.Backend.Provider, Model: s.Backend.Model,
		SystemPrompt: &prompt, SystemPromptState: persist.PromptPresent, GitRoot: root}
	if root != "" {
		rec.GitBranch = gitBranch(root)
	}
	me := myLease()
	if err := s.Store.CreateLeasedSession(rec, me); err != nil {
		return &UsageError{Err: err}
	}
	s.Record, s.lease, s.created = rec, &me, true
	return nil
}

// restorePrompt replays the stored system prompt byte for byte. The four
// stored states: present and empty are replayed as stored; missing and null
// are built now and saved. A present prompt whose closing Model:/Provider:
// lines name another backend than this run's is stale: only those lines
// are rewritten, and saved, so the prefix the provider caches stays put.
// Each outcome is logged.
func (s *Session) restorePrompt() error {
	p, state, err := s.Store.SystemPrompt(s.Record.ID)
	if err != nil {
		return &UsageError{Err: err}
	}
	id := s.Record.ID
	switch state {
	case persist.PromptPresent, persist.PromptEmpty:
		fresh := providers.RewriteRuntimeLines(*p, s.Backend.Provider, s.Backend.Model)
		if fresh == *p {
			s.log(fmt.Sprintf("INFO system prompt restored state=%s bytes=%d session=%s", state, len(*p), id))
			break
		}
		s.log(fmt.Sprintf("INFO system prompt stale runtime lines rewritten to %s/%s session=%s", s.Backend.Provider, s.Backend.Model, id))
		p = &fresh
		if err := s.Store.SetSystemPrompt(id, p); err != nil {
			return &UsageError{Err: err}
		}
	default: // missing, null
		built := s.buildPrompt(time.Now())
		s.log(fmt.Sprintf("INFO system prompt built state=%s session=%s", state, id))
		p = &built
		if err := s.Store.SetSystemPrompt(id, p); err != nil {
			return &UsageError{Err: err}
		}
	}
	s.Record.SystemPrompt = p
	return nil
}

// log appends a line to talaria.log, masked with the session's rules:
// every line the session logs (the loop's, the tools' and MCP servers',
// its own) comes through here.
func (s *Session) log(line string) {
	newLogger(s.Home)(s.mask.Mask(line))
}

// storeSearcher adapts the store's full-text search to session_search.
type storeSearcher struct{ st *persist.Store }

// SearchSessions implements tools.SessionSearcher.
func (a storeSearcher) SearchSessions(ctx context.Context, query string, limit int, sessionID string) ([]tools.SessionHit, error) {
	hits, err := a.st.SearchSessions(ctx, query, limit, sessionID)
	out := make([]tools.SessionHit, len(hits))
	for i, h := range hits {
		out[i] = tools.SessionHit{SessionID: h.SessionID, Title: h.Title, Role: h.Role, Snippet: strings.TrimSpace(h.Snippet), When: h.When}
	}
	return out, err
}

// loadTodos restores the session's todo list (a damaged one is dropped with
// a notice rather than stopping the session).
func (s *Session) loadTodos() []tools.TodoItem {
	raw, err := s.Store.Todos(s.Record.ID)
	if err != nil || len(raw) == 0 {
		if err != nil {
			s.Notice = strings.TrimPrefix(s.Notice+"; todo list not restored: "+err.Error(), "; ")
		}
		return nil
	}
	var items []tools.TodoItem
	if err := json.Unmarshal(raw, &items); err != nil {
		s.Notice = strings.TrimPrefix(s.Notice+"; todo list not restored: "+err.Error(), "; ")
		return nil
	}
	return items
}

// saveTodos keeps the todo list with the session at each turn's end. An
// unchanged list is not written again (a write is a commit, two fsyncs).
func (s *Session) saveTodos(list *tools.TodoList) func(loop.Result) error {
	last, _ := json.Marshal(list.Snapshot())
	return func(loop.Result) error {
		raw, err := json.Marshal(list.Snapshot())
		if err == nil && bytes.Equal(raw, last) {
			return nil
		}
		if err == nil {
			err = s.Store.SaveTodos(s.Record.ID, raw)
		}
		if err != nil {
			return fmt.Errorf("saving the todo list: %w", err)
		}
		last = raw
		return nil
	}
}

// ResumeError is a session reference that resolves to no single session.
// Its Error names the --resume flag (headless and startup report it so);
// ScreenText says the same without the flag, for /resume inside the TUI.
type ResumeError struct {
	Ref string
	Err error
}

func (e *ResumeError) Error() string { return "--resume " + e.Ref + ": " + e.Err.Error() }

// ScreenText is the message without CLI flags.
func (e *ResumeError) ScreenText() string { return "session " + e.Ref + ": " + e.Err.Error() }

func (e *ResumeError) Unwrap() error { return e.Err }
