package persist

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	bolt "go.etcd.io/bbolt"

	"talaria/providers"
)

// titleMaxRunes bounds a derived title, ellipsis included.
const titleMaxRunes = 60

// messagesFillPercent packs pages fully: message keys only ever grow.
const messagesFillPercent = 0.95

// Entry is one stored message with the store's own data about it.
type Entry struct {
	// Seq is the message's 1-based position in its session, assigned by
	// the store; AppendEntries ignores it.
	Seq uint64
	// Message is the message as appended (Internal flags are not stored).
	Message providers.Message
	// Tokens is the message's size in tokens as the caller measured it
	// (for an assistant message, the output tokens of the call that made
	// it); 0 when unknown.
	Tokens int
	// Turn is the turn the message belongs to, as the caller said when it
	// appended it (AppendTurnMessages); 0 when not recorded.
	Turn int
}

// storedMessage is the stored form of an Entry: the message's JSON with
// token_count added, so that the value still decodes as a
// providers.Message.
type storedMessage struct {
	providers.Message
	TokenCount int `json:"token_count,omitempty"`
	Turn       int `json:"turn,omitempty"`
}

// prepared is an entry ready for the write transaction: stamped, encoded
// and tokenized, so that the lock is held only to write.
type prepared struct {
	msg    providers.Message
	raw    []byte
	tokens map[string]struct{}
	turn   int
}

// AppendMessages appends msgs to the session in one transaction, durable when
// it returns. A message whose Timestamp is 0 is stamped with the current
// time (the caller's values are not modified). It bumps MessageCount,
// ToolCallCount (tool calls of assistant messages) and UpdatedAt, sets an
// empty Title from the first user message that has text, and adds the
// messages to the search index. Internal flags are not stored. Appending
// nothing is a no-op.
func (s *Store) AppendMessages(id string, msgs ...providers.Message) error {
	entries := make([]Entry, len(msgs))
	for i := range msgs {
		entries[i].Message = msgs[i]
	}
	return s.AppendEntries(id, entries...)
}

// AppendEntries is AppendMessages for messages with a token count.
func (s *Store) AppendEntries(id string, entries ...Entry) error {
	if len(entries) == 0 {
		return nil
	}
	// Encode and tokenize before taking the lock, to keep it short.
	now := time.Now()
	preps := make([]prepared, len(entries))
	for i := range entries {
		p, err := prepare(entries[i], now)
		if err != nil {
			return fmt.Errorf("encode message %d for session %s: %w", i, id, err)
		}
		preps[i] = p
	}
	return s.update(func(tx *bolt.Tx) error { return s.appendTx(tx, id, preps, now) })
}

// prepare stamps and encodes one entry.
func prepare(e Entry, now time.Time) (prepared, error) {
	m := e.Message
	m.Internal = nil
	if m.Timestamp == 0 {
		m.Timestamp = now.UnixMilli()
	}
	raw, err := json.Marshal(&storedMessage{Message: m, TokenCount: max(e.Tokens, 0), Turn: max(e.Turn, 0)})
	if err != nil {
		return prepared{}, err
	}
	return prepared{msg: m, raw: raw, tokens: distinctTokens(searchText(&m)), turn: max(e.Turn, 0)}, nil
}

// appendTx appends prepared messages inside a write transaction: the
// messages, their index entries and the session's counters.
func (s *Store) appendTx(tx *bolt.Tx, id string, preps []prepared, now time.Time) error {
	sess, err := s.getSession(tx, id, false)
	if err != nil {
		return err
	}
	_, _, messages, err := s.buckets(tx)
	if err != nil {
		return err
	}
	b, err := messages.CreateBucketIfNotExists([]byte(id))
	if err != nil {
		return s.damaged(fmt.Sprintf("the messages of session %s are unreadable", id), err)
	}
	b.FillPercent = messagesFillPercent
	w, err := s.newIndexWriter(tx)
	if err != nil {
		return err
	}
	for i := range preps {
		seq, err := b.NextSequence()
		if err != nil {
			return err
		}
		// bbolt keeps the key until commit: each Put needs its own.
		if err := b.Put(seqKey(seq), preps[i].raw); err != nil {
			return err
		}
		if err := w.add(id, seq, preps[i].tokens); err != nil {
			return err
		}
		m := &preps[i].msg
		sess.MessageCount++
		if m.Role == providers.RoleAssistant {
			sess.ToolCallCount += len(m.ToolCalls)
		}
		sess.Turns = max(sess.Turns, preps[i].turn)
		if sess.Title == "" && m.Role == providers.RoleUser {
			sess.Title = DeriveTitle(m.Content)
		}
	}
	if err := w.flush(); err != nil {
		return err
	}
	sess.UpdatedAt = now.UTC().Round(0)
	return s.putSession(tx, sess, false)
}

// Messages returns the session's messages in the order they were appended;
// ErrNotFound (wrapped) if the session does not exist.
func (s *Store) Messages(id string) ([]providers.Message, error) {
	return s.readMessages(id, -1)
}

// MessagesTail returns the session's last n messages (all of them if it has
// fewer), in order; it reads only those. n <= 0 returns none.
func (s *Store) MessagesTail(id string, n int) ([]providers.Message, error) {
	return s.readMessages(id, max(n, 0))
}

// Entries returns the session's messages with their sequence numbers and
// token counts, in order; ErrNotFound (wrapped) if the session does not
// exist.
func (s *Store) Entries(id string) ([]Entry, error) {
	raw, err := s.readRaw(id, -1)
	if err != nil {
		return nil, err
	}
	return s.decodeEntries(id, &raw)
}

// readMessages loads the last n messages of a session, or all when n < 0,
// decoded straight into the slice returned.
func (s *Store) readMessages(id string, n int) ([]providers.Message, error) {
	raw, err := s.readRaw(id, n)
	if err != nil {
		return nil, err
	}
	out := make([]providers.Message, raw.n)
	if err := s.decodeMessages(id, &raw, out); err != nil {
		return nil, err
	}
	return out, nil
}

// readRaw copies the last n stored messages of a session, or all when
// n < 0. The transaction only copies the raw values; they are decoded
// after it, in parallel for a long session.
func (s *Store) readRaw(id string, n int) (rawEntries, error) {
	var raw rawEntries
	err := s.view(func(tx *bolt.Tx) error {
		if _, err := s.getSession(tx, id, false); err != nil {
			return err
		}
		_, _, messages, err := s.buckets(tx)
		if err != nil {
			return err
		}
		b := messages.Bucket([]byte(id))
		if b == nil || n == 0 {
			return nil
		}
		c := b.Cursor()
		var k []byte
		if n < 0 {
			k, _ = c.First()
		} else {
			// The n-th message from the end, or the first.
			k, _ = c.Last()
			for i := 1; i < n && k != nil; i++ {
				pk, _ := c.Prev()
				if pk == nil {
					break
				}
				k = pk
			}
		}
		raw, err = s.copyEntries(tx, id, c, k)
		return err
	})
	return raw, err
}

// AddUsage adds one or more model calls' accounting to the session's
// counters and sets UpdatedAt.
func (s *Store) AddUsage(id string, apiCalls int, u providers.Usage) error {
	return s.AddUsageCost(id, apiCalls, u, 0)
}

// AddUsageCost is AddUsage that also adds costUSD to the session's
// EstimatedCostUSD, in the same transaction.
func (s *Store) AddUsageCost(id string, apiCalls int, u providers.Usage, costUSD float64) error {
	return s.update(func(tx *bolt.Tx) error { return s.addUsageTx(tx, id, apiCalls, u, costUSD) })
}

// EndSession records when and why the session ended.
func (s *Store) EndSession(id, reason string) error {
	return s.UpdateSession(id, func(sess *Session) {
		t := time.Now().UTC().Round(0)
		sess.EndedAt = &t
		sess.EndReason = reason
	})
}

// DeriveTitle makes a session title from a user message: its first line
// with text, whitespace collapsed, control characters dropped, at most 60
// runes (cut with "…", between words where possible).
func DeriveTitle(content string) string {
	for line := range strings.Lines(strings.ToValidUTF8(content, "\uFFFD")) {
		line = strings.Map(func(r rune) rune {
			if unicode.IsControl(r) && !unicode.IsSpace(r) {
				return -1
			}
			return r
		}, line)
		t := strings.Join(strings.Fields(line), " ")
		if t == "" {
			continue
		}
		if utf8.RuneCountInString(t) <= titleMaxRunes {
			return t
		}
		r := []rune(t)[:titleMaxRunes-1]
		// Prefer to cut between words, unless that loses too much.
		if i := lastSpace(r); i >= titleMaxRunes*2/3 {
			r = r[:i]
		}
		return strings.TrimRightFunc(string(r), unicode.IsSpace) + "…"
	}
	return ""
}

// lastSpace returns the index of the last space in r, or -1.
func lastSpace(r []rune) int {
	for i := len(r) - 1; i >= 0; i-- {
		if r[i] == ' ' {
			return i
		}
	}
	return -1
}

// seqFromKey decodes a key made by seqKey.
func seqFromKey(k []byte) uint64 { return binary.BigEndian.Uint64(k) }

// seqKey encodes a message sequence number as a sortable key.
func seqKey(seq uint64) []byte {
	k := make([]byte, 8)
	binary.BigEndian.PutUint64(k, seq)
	return k
}
