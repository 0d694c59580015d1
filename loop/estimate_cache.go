package loop

import (
	"bytes"
	"sync"

	"talaria/loop/compress"
	"talaria/providers"
)

// estimateCache makes compress.Estimate incremental: it keeps each
// message's token estimate, by position, with the fields it was counted
// from, so a call re-counts only the messages that are new or changed
// (edited, compacted away, shifted) instead of the whole history. Strings
// that share their bytes compare in O(1), so checking the history the
// loop hands back unchanged costs almost nothing. The result is always
// exactly compress.Estimate's.
type estimateCache struct {
	mu      sync.Mutex
	entries []estimateEntry
}

// estimateEntry is one counted message; src holds copies of what a caller
// could change in place (the tool-call slice and the replay bytes).
type estimateEntry struct {
	src    providers.Message
	tokens int
	valid  bool
}

// estimate returns compress.Estimate of req's messages and tools: O(1) in
// the history when its list is the requestView's, else through the
// incremental cache.
func (a *Agent) estimate(req providers.Request) int {
	a.mu.Lock()
	n, ok := a.reqs.estimate(req.Messages, req.Tools)
	a.mu.Unlock()
	if ok {
		return n
	}
	return a.est.estimate(req.Messages, req.Tools)
}

// estimate returns compress.Estimate(msgs, tools).
func (c *estimateCache) estimate(msgs []providers.Message, tools []providers.ToolSpec) int {
	n := compress.Estimate(nil, tools)
	if len(msgs) == 0 {
		return n
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if cap(c.entries) < len(msgs) {
		grown := make([]estimateEntry, len(c.entries), len(msgs))
		copy(grown, c.entries)
		c.entries = grown
	}
	if len(msgs) < len(c.entries) {
		clear(c.entries[len(msgs):]) // a shorter history frees what it dropped
	}
	c.entries = c.entries[:len(msgs)]
	for i := range msgs {
		m, e := &msgs[i], &c.entries[i]
		if !e.valid || !sameCount(&e.src, m) {
			*e = estimateEntry{src: countedFields(m), tokens: compress.MessageTokens(m), valid: true}
		}
		n += e.tokens
	}
	return n + compress.ReplyPriming
}

// sameCount reports whether two messages have the same estimate inputs:
// content, reasoning and whether replay data is present, the tool calls'
// names, arguments and ids, and the tool_call_id answered.
func sameCount(a, b *providers.Message) bool {
	if a.Content != b.Content || a.Reasoning != b.Reasoning || a.ToolCallID != b.ToolCallID ||
		(len(a.ReasoningReplay) > 0) != (len(b.ReasoningReplay) > 0) || len(a.ToolCalls) != len(b.ToolCalls) {
		return false
	}
	for i := range a.ToolCalls {
		x, y := &a.ToolCalls[i], &b.ToolCalls[i]
		if x.ID != y.ID || x.Name != y.Name || x.Arguments != y.Arguments {
			return false
		}
	}
	return true
}

// countedFields copies the estimate inputs of m.
func countedFields(m *providers.Message) providers.Message {
	s := providers.Message{Content: m.Content, Reasoning: m.Reasoning, ToolCallID: m.ToolCallID}
	if len(m.ReasoningReplay) > 0 {
		s.ReasoningReplay = bytes.Clone(m.ReasoningReplay[:1])
	}
	if len(m.ToolCalls) > 0 {
		s.ToolCalls = make([]providers.ToolCall, len(m.ToolCalls))
		for i, tc := range m.ToolCalls {
			s.ToolCalls[i] = providers.ToolCall{ID: tc.ID, Name: tc.Name, Arguments: tc.Arguments}
		}
	}
	return s
}
