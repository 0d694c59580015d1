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

// AppendMessages appends msgs to the session in one transaction, durable when
// it returns. A message whose Timestamp is 0 is stamped with the current
// time (the caller's values are not modified). It bumps MessageCount,
// ToolCallCount (tool calls of assistant messages) and UpdatedAt, and sets an
// empty Title from the first user message that has text. Internal flags are
// not stored. Appending nothing is a no-op.
func (s *Store) AppendMessages(id string, msgs ...providers.Message) error {
	if len(msgs) == 0 {
		return nil
	}
	// Encode before taking the lock, to keep the time it is held short.
	now := time.Now()
	raws := make([][]byte, len(msgs))
	toolCalls := 0
	for i := range msgs {
		m := msgs[i]
		if m.Timestamp == 0 {
			m.Timestamp = now.UnixMilli()
		}
		raw, err := json.Marshal(&m)
		if err != nil {
			return fmt.Errorf("encode message %d for session %s: %w", i, id, err)
		}
		raws[i] = raw
		if m.Role == providers.RoleAssistant {
			toolCalls += len(m.ToolCalls)
		}
	}
	return s.update(func(tx *bolt.Tx) error {
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
		for _, raw := range raws {
			seq, err := b.NextSequence()
			if err != nil {
				return err
			}
			// bbolt keeps the key until commit: each Put needs its own.
			if err := b.Put(seqKey(seq), raw); err != nil {
				return err
			}
		}
		sess.MessageCount += len(msgs)
		sess.ToolCallCount += toolCalls
		if sess.Title == "" {
			for i := range msgs {
				if msgs[i].Role != providers.RoleUser {
					continue
				}
				if t := DeriveTitle(msgs[i].Content); t != "" {
					sess.Title = t
					break
				}
			}
		}
		sess.UpdatedAt = now.UTC().Round(0)
		return s.putSession(tx, sess, false)
	})
}

// Messages returns the session's messages in the order they were appended;
// ErrNotFound (wrapped) if the session does not exist.
func (s *Store) Messages(id string) ([]providers.Message, error) {
	var out []providers.Message
	err := s.view(func(tx *bolt.Tx) error {
		sess, err := s.getSession(tx, id, false)
		if err != nil {
			return err
		}
		_, _, messages, err := s.buckets(tx)
		if err != nil {
			return err
		}
		b := messages.Bucket([]byte(id))
		out = make([]providers.Message, 0, sess.MessageCount)
		if b == nil {
			return nil
		}
		// Unmarshal copies what it keeps (strings, RawMessage), so nothing
		// refers to the mapped file after the transaction.
		return b.ForEach(func(k, v []byte) error {
			var m providers.Message
			if err := json.Unmarshal(v, &m); err != nil {
				return s.damaged(fmt.Sprintf("message %x of session %s is unreadable", k, id), err)
			}
			out = append(out, m)
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// AddUsage adds one or more model calls' accounting to the session's
// counters and sets UpdatedAt.
func (s *Store) AddUsage(id string, apiCalls int, u providers.Usage) error {
	return s.update(func(tx *bolt.Tx) error {
		sess, err := s.getSession(tx, id, false)
		if err != nil {
			return err
		}
		sess.APICallCount += apiCalls
		sess.InputTokens += u.InputTokens
		sess.OutputTokens += u.OutputTokens
		sess.CacheReadTokens += u.CacheReadTokens
		sess.CacheWriteTokens += u.CacheWriteTokens
		sess.ReasoningTokens += u.ReasoningTokens
		sess.UpdatedAt = time.Now().UTC().Round(0)
		return s.putSession(tx, sess, false)
	})
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

// seqKey encodes a message sequence number as a sortable key.
func seqKey(seq uint64) []byte {
	k := make([]byte, 8)
	binary.BigEndian.PutUint64(k, seq)
	return k
}
