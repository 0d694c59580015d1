package loop

import (
	"unsafe"

	"talaria/loop/compress"
	"talaria/providers"
)

// requestView is the message list of the model requests: the system
// message, then a mirror of the history. It is kept from call to call and
// only the history's new messages are copied in, so building a request
// costs what the history gained since the last call, not its length (issue
// 15 part 8). It also keeps each mirrored message's token estimate, so the
// preflight estimate of a request is O(1) in the history.
//
// The invariants it relies on:
//
//   - The view is read and written with Agent.mu held, and only the turn
//     goroutine (or Compress, which runs only while no turn does) writes
//     the history; so a request built from the view is never written while
//     a Transport encodes it: Stream runs on the turn goroutine, and the
//     view's array is only rewritten by the next sync, after Stream
//     returned. A Transport must not keep req.Messages past Stream.
//   - The history only grows at its end. Code that changes a message
//     already in the history, or removes one, calls changed() under
//     Agent.mu (dropScaffolding, deliverSteer, compressHistory). A history
//     replaced by a new slice, or cut shorter, is also seen without it:
//     sync compares the backing array and the length.
//   - The request's slice has cap == len, so a consumer that appends to
//     req.Messages (or takes a sub-slice and appends) gets a new array and
//     cannot write the view's spare capacity.
//   - Copy-on-write: the view never writes a slot of an array it has
//     handed out (handed counts them). A change to a slot already handed
//     out — a new or restored system message, a message pushed over a
//     history cut shorter, a rebuild after changed() — moves the view to a
//     new array first. So a slot at the same address in a later request
//     holds the same message, which the request states with
//     providers.Request.AppendOnly and which lets a wire skip re-checking
//     the messages it encoded on the last call (openaichat's msgCache).
//     The one writer of a handed slot outside the view is fallback, which
//     rewrites the system message (slot 0) of the request it retries;
//     AppendOnly leaves slot 0 to be re-checked, and the next sync, seeing
//     slot 0 differ from the system prompt, copies before restoring it.
type requestView struct {
	msgs    []providers.Message // [system] + history[:n]
	tokens  []int               // compress.MessageTokens of each msgs entry
	sum     int                 // the sum of tokens
	sys     bool                // msgs[0] is the system message
	hist    *providers.Message  // the history's backing array when mirrored
	n       int                 // history messages mirrored
	gen     uint64              // bumped by changed(); seen is its value at sync
	seen    uint64
	sysText string // the system prompt tokens[0] counts
	// handed is how many slots of msgs' array have been handed out in a
	// request: they are never written again (copy-on-write).
	handed int
}

// changed records that messages already in the history were edited or
// removed in place, so the mirror is rebuilt. Agent.mu must be held.
func (v *requestView) changed() { v.gen++ }

// sync brings the view up to date with history and returns the request's
// message list: the system message (when sysPrompt is set) and the
// history. Agent.mu must be held.
func (v *requestView) sync(history []providers.Message, sysPrompt string) []providers.Message {
	off := 0
	if sysPrompt != "" {
		off = 1
	}
	var data *providers.Message
	if cap(history) > 0 {
		data = unsafe.SliceData(history[:1])
	}
	valid := v.seen == v.gen && v.hist == data && (off == 1) == v.sys && len(v.msgs) == v.n+off
	switch {
	case !valid:
		v.truncate(0)
		v.n = 0
		if v.handed > 0 {
			v.msgs, v.handed = make([]providers.Message, 0, cap(v.msgs)), 0
		}
	case len(history) < v.n:
		// Cut shorter in place: what is left is unchanged (an edit would
		// have called changed).
		v.truncate(len(history) + off)
		v.n = len(history)
	}
	v.seen, v.hist, v.sys = v.gen, data, off == 1
	if off == 1 {
		// Slot 0 is checked each call: a consumer may have rewritten it (a
		// fallback puts the new runtime lines in the request it retries),
		// and the prompt may have changed.
		sys := providers.Message{Role: providers.RoleSystem, Content: sysPrompt}
		if len(v.msgs) == 0 {
			v.push(sys)
		} else if !isSystem(&v.msgs[0], sysPrompt) {
			v.own(1)
			v.msgs[0] = sys
		}
		v.recountSystem(sysPrompt)
	}
	for _, m := range history[v.n:] {
		v.push(m)
	}
	v.n = len(history)
	v.handed = max(v.handed, len(v.msgs))
	return v.msgs[:len(v.msgs):len(v.msgs)]
}

// isSystem reports whether m is exactly the system message of prompt.
func isSystem(m *providers.Message, prompt string) bool {
	return m.Role == providers.RoleSystem && m.Content == prompt && m.ToolCalls == nil && m.ToolCallID == "" &&
		m.ToolName == "" && m.Images == nil && m.Reasoning == "" && m.ReasoningReplay == nil &&
		m.FinishReason == "" && m.Timestamp == 0 && m.Internal == nil
}

// own makes slots [0, end) of msgs writable: when one of them was handed
// out, the view moves to a new array (copy-on-write), leaving the old one
// to the requests that hold it.
func (v *requestView) own(end int) {
	if end > v.handed {
		return
	}
	fresh := make([]providers.Message, len(v.msgs), max(cap(v.msgs), len(v.msgs)+1))
	copy(fresh, v.msgs)
	v.msgs, v.handed = fresh, 0
}

// recountSystem makes tokens[0] the estimate of a system message holding
// text.
func (v *requestView) recountSystem(text string) {
	if v.sysText == text {
		return
	}
	m := providers.Message{Role: providers.RoleSystem, Content: text}
	v.sum -= v.tokens[0]
	v.tokens[0] = compress.MessageTokens(&m)
	v.sum += v.tokens[0]
	v.sysText = text
}

// push appends one message to the view.
func (v *requestView) push(m providers.Message) {
	v.own(len(v.msgs) + 1)
	v.msgs = append(v.msgs, m)
	tok := compress.MessageTokens(&v.msgs[len(v.msgs)-1])
	v.tokens = append(v.tokens, tok)
	v.sum += tok
}

// truncate keeps the first n entries of the view, clearing the rest that
// were never handed out so the dropped messages can be freed (handed ones
// are left as they are, and go with their array at the next copy).
func (v *requestView) truncate(n int) {
	for _, t := range v.tokens[n:] {
		v.sum -= t
	}
	clear(v.msgs[max(n, min(v.handed, len(v.msgs))):])
	v.msgs, v.tokens = v.msgs[:n], v.tokens[:n]
}

// estimate returns compress.Estimate(msgs, tools) in O(1) of the history
// when msgs is the list the last sync returned, unchanged; ok is false for
// any other list. Agent.mu must be held.
func (v *requestView) estimate(msgs []providers.Message, tools []providers.ToolSpec) (n int, ok bool) {
	if len(msgs) == 0 || len(msgs) != len(v.msgs) || &msgs[0] != &v.msgs[0] {
		return 0, false
	}
	if v.sys {
		// The one entry a consumer may rewrite (see sync).
		v.recountSystem(msgs[0].Content)
	}
	return compress.Estimate(nil, tools) + v.sum + compress.ReplyPriming, true
}
