package persist

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

	"talaria/providers"
)

// InterruptedToolResult is the receipt that answers, on load, a saved tool
// call that has no saved result: talaria stopped (killed, crashed) while
// the batch ran, so the tool may or may not have run. The text tells the
// model to check the call's effects rather than repeat it blindly.
func InterruptedToolResult(call providers.ToolCall) providers.Message {
	return providers.Message{
		Role:       providers.RoleTool,
		ToolCallID: call.ID,
		ToolName:   call.Name,
		Content: fmt.Sprintf("[Tool execution interrupted — %s may have run: talaria stopped before its result was saved. "+
			"Check its effects (files, processes, state) before running it again.]", call.Name),
	}
}

// RepairDangling returns msgs with every assistant tool call answered:
// where an assistant message's calls lack a tool result among the tool
// messages that directly follow it, an InterruptedToolResult is inserted after
// those tool messages, in call order. Providers reject a history with an
// unanswered call, so the wiring runs this on every loaded history. msgs
// itself is returned when nothing is missing; otherwise a new slice (msgs
// is not modified).
func RepairDangling(msgs []providers.Message) []providers.Message {
	var out []providers.Message // nil until the first repair
	copied := 0                 // msgs[:copied] are in out
	for i := 0; i < len(msgs); i++ {
		m := &msgs[i]
		if m.Role != providers.RoleAssistant || len(m.ToolCalls) == 0 {
			continue
		}
		end := i + 1
		answered := make(map[string]bool)
		for ; end < len(msgs) && msgs[end].Role == providers.RoleTool; end++ {
			answered[msgs[end].ToolCallID] = true
		}
		var missing []providers.Message
		for _, tc := range m.ToolCalls {
			if !answered[tc.ID] {
				answered[tc.ID] = true // a repeated id is answered once
				missing = append(missing, InterruptedToolResult(tc))
			}
		}
		if len(missing) > 0 {
			if out == nil {
				out = make([]providers.Message, 0, len(msgs)+len(missing))
			}
			out = append(out, msgs[copied:end]...)
			out = append(out, missing...)
			copied = end
		}
		i = end - 1
	}
	if out == nil {
		return msgs
	}
	return append(out, msgs[copied:]...)
}

// CloseDangling makes sure the stored session does not end on unanswered
// tool calls: if its last assistant message is followed only by tool
// messages and some of its calls have no result, it appends an
// InterruptedToolResult for each (in call order) in one transaction, like
// AppendMessages. It returns how many it appended. Dangling calls earlier
// in a session cannot be fixed by appending; RepairDangling handles them
// at load.
func (s *Store) CloseDangling(id string) (int, error) {
	now := time.Now()
	added := 0
	err := s.update(func(tx *bolt.Tx) error {
		added = 0
		missing, err := s.danglingCalls(tx, id)
		if err != nil {
			return err
		}
		if len(missing) == 0 {
			return errNothingToCommit // roll back: an empty commit still costs two fsyncs
		}
		preps := make([]prepared, len(missing))
		for i, tc := range missing {
			if preps[i], err = prepare(Entry{Message: InterruptedToolResult(tc)}, now); err != nil {
				return err
			}
		}
		added = len(preps)
		return s.appendTx(tx, id, preps, now)
	})
	if err != nil && !errors.Is(err, errNothingToCommit) {
		return 0, err
	}
	return added, nil
}

// errNothingToCommit rolls back a write transaction that found nothing to do.
var errNothingToCommit = errors.New("nothing to commit")

// danglingCalls returns the unanswered tool calls of the session's last
// assistant message, if only tool messages follow it.
func (s *Store) danglingCalls(tx *bolt.Tx, id string) ([]providers.ToolCall, error) {
	if _, err := s.getSession(tx, id, false); err != nil {
		return nil, err
	}
	_, _, messages, err := s.buckets(tx)
	if err != nil {
		return nil, err
	}
	b := messages.Bucket([]byte(id))
	if b == nil {
		return nil, nil
	}
	answered := make(map[string]bool)
	c := b.Cursor()
	for k, v := c.Last(); k != nil; k, v = c.Prev() {
		var m providers.Message
		if err := json.Unmarshal(v, &m); err != nil {
			return nil, s.damaged(fmt.Sprintf("message %x of session %s is unreadable", k, id), err)
		}
		switch m.Role {
		case providers.RoleTool:
			answered[m.ToolCallID] = true
			continue
		case providers.RoleAssistant:
			var missing []providers.ToolCall
			for _, tc := range m.ToolCalls {
				if !answered[tc.ID] {
					answered[tc.ID] = true
					missing = append(missing, tc)
				}
			}
			return missing, nil
		}
		return nil, nil
	}
	return nil, nil
}
