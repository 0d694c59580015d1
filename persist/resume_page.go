package persist

import (
	"encoding/json"
	"fmt"
	"slices"

	bolt "go.etcd.io/bbolt"

	"talaria/providers"
)

// ResumePage is a run of consecutive messages of a session's resume
// history (what [Store.ResumeMessages] returns): a screen shows the tail
// of a long session and pages older messages in as they are scrolled to,
// instead of holding the whole history.
type ResumePage struct {
	// Messages are the resume history's messages From to From+len-1.
	Messages []providers.Message
	// From is the index of Messages[0] in the resume history.
	From int
	// Total is the length of the resume history.
	Total int
}

// ResumePageBefore returns the messages of the session's resume history
// that come before index before (before < 0, or past the end: the end):
// the last n of them, or more so that the page does not begin with a tool
// result (a call and its results stay on one page), or fewer when the
// history has fewer. n <= 0 returns an empty page with Total set.
//
// A session without a compaction snapshot or conversation rewinds (the
// usual case) is read directly: only the page's messages are copied and
// decoded, whatever the length of the session. Otherwise the resume
// history is assembled as ResumeMessages does and the page cut from it.
// ErrNotFound (wrapped) if the session does not exist.
func (s *Store) ResumePageBefore(id string, before, n int) (ResumePage, error) {
	plain, err := s.PlainResume(id)
	if err != nil {
		return ResumePage{}, err
	}
	if plain {
		page, ok, err := s.logPage(id, before, n)
		if err != nil || ok {
			return page, err
		}
	}
	msgs, err := s.ResumeMessages(id)
	if err != nil {
		return ResumePage{}, err
	}
	total := len(msgs)
	if before < 0 || before > total {
		before = total
	}
	from := pageStart(before, n, func(i int) (bool, error) { return msgs[i].Role == providers.RoleTool, nil })
	return ResumePage{Messages: slices.Clone(msgs[from:before]), From: from, Total: total}, nil
}

// pageStart is where a page of n messages ending before before starts:
// before-n, moved back over tool results (isTool says whether message i
// is one) so that the page begins with the call they answer.
func pageStart(before, n int, isTool func(i int) (bool, error)) int {
	if n <= 0 {
		return before
	}
	from := max(0, before-n)
	for from > 0 {
		tool, err := isTool(from)
		if err != nil || !tool {
			break
		}
		from--
	}
	return from
}

// PlainResume reports whether the session's resume history is its stored
// log as it is: no compaction snapshot and no conversation rewind. The
// log's indices then stay those of the resume history it was, whatever
// compaction comes later (a compaction adds a snapshot; the log is kept).
func (s *Store) PlainResume(id string) (bool, error) {
	covers, err := s.snapshotCovers(id)
	if err != nil || covers > 0 {
		return false, err
	}
	rws, err := s.Rewinds(id)
	if err != nil {
		return false, err
	}
	return !slices.ContainsFunc(rws, func(r Rewind) bool { return r.Conversation }), nil
}

// LogPageBefore is ResumePageBefore over the session's message log, in
// the order it was logged, whatever snapshot or rewind came since: for a
// session that was PlainResume when a screen took its tail, the pages of
// what it showed. Only the page's messages are read. An error if the log's
// keys are not consecutive (a damaged log).
func (s *Store) LogPageBefore(id string, before, n int) (ResumePage, error) {
	page, ok, err := s.logPage(id, before, n)
	if err == nil && !ok {
		err = s.damaged(fmt.Sprintf("the message log of session %s has gaps", id), nil)
	}
	return page, err
}

// logPage reads a page straight from the message log, whose keys are the
// sequence numbers 1 to N (messages are append-only, never deleted), so
// that message i is key i+1. ok is false when the keys are not so (the
// caller then assembles the history instead).
func (s *Store) logPage(id string, before, n int) (page ResumePage, ok bool, err error) {
	var raw rawEntries
	err = s.view(func(tx *bolt.Tx) error {
		sess, err := s.getSession(tx, id, false)
		if err != nil {
			return err
		}
		_, _, messages, err := s.buckets(tx)
		if err != nil {
			return err
		}
		b := messages.Bucket([]byte(id))
		if b == nil {
			ok = sess.MessageCount == 0
			return nil
		}
		c := b.Cursor()
		first, _ := c.First()
		last, _ := c.Last()
		if first == nil {
			ok = sess.MessageCount == 0
			return nil
		}
		// Every message logged has a key: the count says there is no gap.
		if len(first) != docKeySize || len(last) != docKeySize || seqFromKey(first) != 1 ||
			seqFromKey(last) != uint64(sess.MessageCount) {
			return nil
		}
		total := sess.MessageCount
		if before < 0 || before > total {
			before = total
		}
		isTool := func(i int) (bool, error) {
			v := b.Get(seqKey(uint64(i + 1)))
			if v == nil {
				return false, fmt.Errorf("no message %d", i+1)
			}
			var m struct {
				Role providers.Role `json:"role"`
			}
			if err := json.Unmarshal(v, &m); err != nil {
				return false, s.damaged(fmt.Sprintf("message %d of session %s is unreadable", i+1, id), err)
			}
			return m.Role == providers.RoleTool, nil
		}
		from := pageStart(before, n, isTool)
		k := seqKey(uint64(from + 1))
		if kk, _ := c.Seek(k); kk == nil || seqFromKey(kk) != uint64(from+1) {
			return nil // a gap in the keys: not a plain log
		}
		raw, err = s.copyEntriesN(tx, id, c, k, before-from)
		if err != nil {
			return err
		}
		if raw.n != before-from || (raw.n > 0 && lastSeqOf(&raw) != uint64(before)) {
			return nil
		}
		page.From, page.Total, ok = from, total, true
		return nil
	})
	if err != nil || !ok {
		return ResumePage{}, ok, err
	}
	page.Messages = make([]providers.Message, raw.n)
	if err := s.decodeMessages(id, &raw, page.Messages); err != nil {
		return ResumePage{}, false, err
	}
	return page, true, nil
}

// lastSeqOf is the sequence number of the last message copied into r.
func lastSeqOf(r *rawEntries) uint64 {
	ch := r.chunks[len(r.chunks)-1]
	return ch.seqs[len(ch.seqs)-1]
}
