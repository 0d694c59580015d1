package persist

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// The stored states of a session's system prompt.
const (
	// PromptMissing: never built.
	PromptMissing = "missing"
	// PromptNull: explicitly cleared (set SystemPromptState to PromptNull
	// with a nil SystemPrompt), so the next turn rebuilds it.
	PromptNull = "null"
	// PromptEmpty: built, and empty.
	PromptEmpty = "empty"
	// PromptPresent: built, non-empty; replayed byte for byte.
	PromptPresent = "present"
)

// Session is one conversation's record: identity, model, system prompt,
// lifecycle and counters. Its messages are stored separately.
type Session struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Cwd      string `json:"cwd"`
	Provider string `json:"provider"`
	Model    string `json:"model"`
	// GitRoot and GitBranch describe the repository the session worked in
	// (empty outside one).
	GitRoot   string `json:"git_root,omitempty"`
	GitBranch string `json:"git_branch,omitempty"`
	// SystemPrompt is the prompt built once for the session: nil when never
	// built (or cleared), a pointer to "" when built empty.
	SystemPrompt *string `json:"system_prompt,omitempty"`
	// SystemPromptState is PromptMissing, PromptNull, PromptEmpty or
	// PromptPresent as last stored. On write it is derived from SystemPrompt,
	// except that a nil prompt with state PromptNull stays "null".
	SystemPromptState string `json:"system_prompt_state"`
	// ParentID is the session this one continues (compression, branch).
	ParentID  string     `json:"parent_id,omitempty"`
	CreatedAt time.Time  `json:"created_at"`
	UpdatedAt time.Time  `json:"updated_at"`
	EndedAt   *time.Time `json:"ended_at,omitempty"`
	EndReason string     `json:"end_reason,omitempty"`

	// Busy is the lease of the live process running the session, when
	// MarkBusy found one; it is for listings and never stored.
	Busy *Lease `json:"busy,omitempty"`

	MessageCount     int `json:"message_count"`
	ToolCallCount    int `json:"tool_call_count"`
	APICallCount     int `json:"api_call_count"`
	InputTokens      int `json:"input_tokens"`
	OutputTokens     int `json:"output_tokens"`
	CacheReadTokens  int `json:"cache_read_tokens"`
	CacheWriteTokens int `json:"cache_write_tokens"`
	ReasoningTokens  int `json:"reasoning_tokens,omitempty"`
	// Turns is the number of the session's last turn still in its
	// history (a conversation rewind lowers it); 0 when not recorded.
	Turns int `json:"turns,omitempty"`
	// RewoundMessages is how many of the MessageCount messages
	// conversation rewinds took back (see LiveMessages).
	RewoundMessages int `json:"rewound_messages,omitempty"`
	// EstimatedCostUSD is the running cost estimate of the session's model
	// calls, in US dollars (0 when unknown).
	EstimatedCostUSD float64 `json:"estimated_cost_usd,omitempty"`
}

// NewSessionID returns an id in Hermes's form YYYYMMDD_HHMMSS_<6 hex>, the
// time taken from now as given and the suffix from crypto/rand.
func NewSessionID(now time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (it crashes instead)
	return now.Format("20060102_150405") + "_" + hex.EncodeToString(b[:])
}

// GetSession returns the session with exactly this id, system prompt
// included; ErrNotFound (wrapped with the id) if there is none.
func (s *Store) GetSession(id string) (*Session, error) {
	var sess *Session
	err := s.view(func(tx *bolt.Tx) error {
		var err error
		sess, err = s.getSession(tx, id, true)
		return err
	})
	return sess, err
}

// UpdateSession applies fn to the stored session and writes it back, in one
// transaction; it sets UpdatedAt. fn must not keep the pointer, nor call the
// Store (such a call waits out the lock timeout and fails). A panic in fn
// rolls the transaction back and is re-raised.
func (s *Store) UpdateSession(id string, fn func(*Session)) error {
	var fnPanic *callbackPanic
	err := s.update(func(tx *bolt.Tx) error {
		sess, err := s.getSession(tx, id, true)
		if err != nil {
			return err
		}
		func() {
			defer func() {
				if r := recover(); r != nil {
					fnPanic = &callbackPanic{value: r}
				}
			}()
			fn(sess)
		}()
		if fnPanic != nil {
			return fnPanic
		}
		sess.ID = id
		sess.UpdatedAt = time.Now().UTC().Round(0)
		return s.putSession(tx, sess, true)
	})
	if fnPanic != nil {
		panic(fnPanic.value)
	}
	return err
}

// callbackPanic carries a panic out of a caller's callback past the
// transaction, so it rolls back and the file is closed before re-panicking.
type callbackPanic struct{ value any }

func (c *callbackPanic) Error() string { return fmt.Sprintf("callback panicked: %v", c.value) }

// RenameSession sets the session's title (trimmed, on one line).
func (s *Store) RenameSession(id, title string) error {
	title = strings.Join(strings.Fields(title), " ")
	if title == "" {
		return errors.New("rename session: the title is empty")
	}
	return s.UpdateSession(id, func(sess *Session) { sess.Title = title })
}

// DeleteSession removes a session, its system prompt, its messages and
// their search index entries, its compaction snapshot and its todos, in one
// transaction.
func (s *Store) DeleteSession(id string) error {
	return s.update(func(tx *bolt.Tx) error {
		sessions, prompts, messages, err := s.buckets(tx)
		if err != nil {
			return err
		}
		if id == "" || sessions.Get([]byte(id)) == nil {
			return fmt.Errorf("%w: %q", ErrNotFound, id)
		}
		if err := sessions.Delete([]byte(id)); err != nil {
			return err
		}
		if err := prompts.Delete([]byte(id)); err != nil {
			return err
		}
		if err := deleteRewindData(tx, id); err != nil {
			return err
		}
		for _, name := range []string{bucketSnaps, bucketTodos} {
			b, err := s.bucket(tx, name)
			if err != nil {
				return err
			}
			if err := b.Delete([]byte(id)); err != nil {
				return err
			}
		}
		if err := deleteSpans(tx, id); err != nil {
			return err
		}
		if err := s.unindexSession(tx, id, messages.Bucket([]byte(id))); err != nil {
			return err
		}
		if messages.Bucket([]byte(id)) != nil {
			return messages.DeleteBucket([]byte(id))
		}
		return nil
	})
}

// ListSessions returns every session, most recently updated first. System
// prompts are not loaded (SystemPrompt is nil, SystemPromptState still says
// what is stored); GetSession loads one.
func (s *Store) ListSessions() ([]Session, error) {
	var all []Session
	err := s.view(func(tx *bolt.Tx) error {
		var err error
		all, err = s.scan(tx)
		return err
	})
	if err != nil {
		return nil, err
	}
	sortNewestFirst(all)
	return all, nil
}

// LatestSession returns the most recently updated session whose cwd is cwd
// (compared after filepath.Clean), system prompt included; ErrNotFound if
// there is none.
func (s *Store) LatestSession(cwd string) (*Session, error) {
	want := filepath.Clean(cwd)
	var best *Session
	err := s.view(func(tx *bolt.Tx) error {
		all, err := s.scan(tx)
		if err != nil {
			return err
		}
		var id string
		for i := range all {
			if filepath.Clean(all[i].Cwd) != want {
				continue
			}
			if id == "" || newer(&all[i], best) {
				id, best = all[i].ID, &all[i]
			}
		}
		if id == "" {
			return fmt.Errorf("%w in %s", ErrNotFound, cwd)
		}
		best, err = s.getSession(tx, id, true)
		return err
	})
	if err != nil {
		return nil, err
	}
	return best, nil
}

// ResolveSession finds a session by exact id, by unique id prefix, by a
// unique prefix of the id's random suffix (what the TUI shows), or by
// exact title (the most recently updated one if several share it). An
// ambiguous prefix is an error listing the candidates.
func (s *Store) ResolveSession(ref string) (*Session, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return nil, fmt.Errorf("%w: empty session reference", ErrNotFound)
	}
	var found *Session
	err := s.view(func(tx *bolt.Tx) error {
		sessions, _, _, err := s.buckets(tx)
		if err != nil {
			return err
		}
		if sessions.Get([]byte(ref)) != nil {
			found, err = s.getSession(tx, ref, true)
			return err
		}
		var ids []string
		c := sessions.Cursor()
		for k, _ := c.Seek([]byte(ref)); k != nil && bytes.HasPrefix(k, []byte(ref)); k, _ = c.Next() {
			ids = append(ids, string(k))
		}
		if len(ids) == 0 {
			ids = suffixMatches(sessions, ref)
		}
		switch {
		case len(ids) == 1:
			found, err = s.getSession(tx, ids[0], true)
			return err
		case len(ids) > 1:
			return s.ambiguous(tx, ref, ids)
		}
		all, err := s.scan(tx)
		if err != nil {
			return err
		}
		var best *Session
		for i := range all {
			if all[i].Title == ref && (best == nil || newer(&all[i], best)) {
				best = &all[i]
			}
		}
		if best == nil {
			return fmt.Errorf("%w: no session id, id prefix or title matches %q", ErrNotFound, ref)
		}
		found, err = s.getSession(tx, best.ID, true)
		return err
	})
	if err != nil {
		return nil, err
	}
	return found, nil
}

// suffixMatches returns the ids whose random part (after the last "_",
// the part that tells a day's sessions apart) starts with ref: the screen
// shows that part, so "/resume 3fa9c1" works like a prefix.
func suffixMatches(sessions *bolt.Bucket, ref string) []string {
	if strings.Contains(ref, "_") {
		return nil
	}
	var ids []string
	c := sessions.Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		id := string(k)
		if i := strings.LastIndexByte(id, '_'); i >= 0 && strings.HasPrefix(id[i+1:], ref) {
			ids = append(ids, id)
		}
	}
	return ids
}

// ambiguous builds the error for a prefix matching several ids, newest
// first, at most ten listed.
func (s *Store) ambiguous(tx *bolt.Tx, ref string, ids []string) error {
	var cands []Session
	for _, id := range ids {
		sess, err := s.getSession(tx, id, false)
		if err != nil {
			return err
		}
		cands = append(cands, *sess)
	}
	sortNewestFirst(cands)
	const shown = 10
	var b strings.Builder
	fmt.Fprintf(&b, "session prefix %q is ambiguous, %d sessions match:", ref, len(cands))
	for i, c := range cands {
		if i == shown {
			fmt.Fprintf(&b, "\n  ... and %d more", len(cands)-shown)
			break
		}
		title := c.Title
		if title == "" {
			title = "(untitled)"
		}
		fmt.Fprintf(&b, "\n  %s  %s", c.ID, title)
	}
	return errors.New(b.String())
}

// getSession decodes one session record, optionally with its prompt.
func (s *Store) getSession(tx *bolt.Tx, id string, withPrompt bool) (*Session, error) {
	sessions, prompts, _, err := s.buckets(tx)
	if err != nil {
		return nil, err
	}
	raw := sessions.Get([]byte(id))
	if id == "" || raw == nil {
		return nil, fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	sess, err := s.decodeSession(id, raw)
	if err != nil {
		return nil, err
	}
	if !withPrompt {
		return sess, nil
	}
	switch sess.SystemPromptState {
	case PromptEmpty:
		sess.SystemPrompt = new(string)
	case PromptPresent:
		p := prompts.Get([]byte(id))
		if p == nil {
			return nil, s.damaged(fmt.Sprintf("the system prompt of session %s is missing", id), nil)
		}
		text := string(p)
		sess.SystemPrompt = &text
	}
	return sess, nil
}

// decodeSession parses a stored record.
func (s *Store) decodeSession(id string, raw []byte) (*Session, error) {
	var sess Session
	if err := json.Unmarshal(raw, &sess); err != nil {
		return nil, s.damaged(fmt.Sprintf("the record of session %s is unreadable", id), err)
	}
	sess.ID = id
	sess.SystemPrompt = nil
	if sess.SystemPromptState == "" {
		sess.SystemPromptState = PromptMissing
	}
	return &sess, nil
}

// putSession writes the record and, if withPrompt, the system prompt (only
// when it changed, so an unchanged prompt dirties no page). It normalises
// sess.SystemPromptState.
func (s *Store) putSession(tx *bolt.Tx, sess *Session, withPrompt bool) error {
	sessions, prompts, _, err := s.buckets(tx)
	if err != nil {
		return err
	}
	if withPrompt {
		sess.SystemPromptState = promptState(sess.SystemPrompt, sess.SystemPromptState)
		key := []byte(sess.ID)
		if sess.SystemPromptState == PromptPresent {
			if old := prompts.Get(key); old == nil || string(old) != *sess.SystemPrompt {
				if err := prompts.Put(key, []byte(*sess.SystemPrompt)); err != nil {
					return err
				}
			}
		} else if prompts.Get(key) != nil {
			if err := prompts.Delete(key); err != nil {
				return err
			}
		}
	}
	rec := *sess
	rec.SystemPrompt, rec.Busy = nil, nil
	raw, err := json.Marshal(&rec)
	if err != nil {
		return fmt.Errorf("encode session %s: %w", sess.ID, err)
	}
	return sessions.Put([]byte(sess.ID), raw)
}

// promptState derives the stored state from the prompt pointer.
func promptState(p *string, claimed string) string {
	switch {
	case p == nil && claimed == PromptNull:
		return PromptNull
	case p == nil:
		return PromptMissing
	case *p == "":
		return PromptEmpty
	}
	return PromptPresent
}

// scan decodes every session record, without prompts.
func (s *Store) scan(tx *bolt.Tx) ([]Session, error) {
	sessions, _, _, err := s.buckets(tx)
	if err != nil {
		return nil, err
	}
	var all []Session
	err = sessions.ForEach(func(k, v []byte) error {
		sess, err := s.decodeSession(string(k), v)
		if err != nil {
			return err
		}
		all = append(all, *sess)
		return nil
	})
	return all, err
}

// newer orders sessions: later UpdatedAt, then later CreatedAt, then the
// greater id.
func newer(a, b *Session) bool {
	if !a.UpdatedAt.Equal(b.UpdatedAt) {
		return a.UpdatedAt.After(b.UpdatedAt)
	}
	if !a.CreatedAt.Equal(b.CreatedAt) {
		return a.CreatedAt.After(b.CreatedAt)
	}
	return a.ID > b.ID
}

// sortNewestFirst sorts by newer. (sort.Slice rather than slices.SortFunc
// for slices of structs throughout persist: the generic sort is compiled
// again for each struct type, ~25 KB of binary each.)
func sortNewestFirst(all []Session) {
	sort.Slice(all, func(i, j int) bool { return newer(&all[i], &all[j]) })
}
