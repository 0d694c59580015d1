package openaichat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
	"unsafe"

	"talaria/providers"
)

// msgCache keeps the wire bytes of each message of the last request, by
// position, together with the fields it was encoded from. A message that
// is the same on the next call (the history only grows) reuses its bytes;
// one that changed (edited, compressed away, shifted) is encoded again.
// Comparing strings that share their bytes is O(1), so a lookup costs
// almost nothing for the history the loop hands back unchanged.
//
// A request that is AppendOnly (providers.Request) and whose message list
// has the backing array of the last one skips the comparison of the
// messages both share, but for the first (a fallback may rewrite the
// system message in place): its maker never writes a slot it handed out.
// data holds that array (a real pointer, so the array is not freed and its
// address cannot be reused by another) and is nil when the last request
// was not AppendOnly or failed to encode.
type msgCache struct {
	mu      sync.Mutex
	entries []cacheEntry
	data    *providers.Message
	extra   bool // withExtra of the request data is from
	// buf is the last body's buffer and open the number of its users (the
	// body until released, and each reader the HTTP client has not closed
	// yet; cache_body.go): it is written again only when that is 0, else
	// the next body gets a new buffer. gen numbers the buffers, so a user
	// of an older one does not count against this one.
	buf  []byte
	open int
	gen  uint64
	// ends[i] is where entry i's bytes (and its images) end in buf, for
	// the entries made from the last request; images is whether one of
	// them has images.
	ends   []int
	images bool
	// noneSent is whether the last request sent no image at all.
	noneSent bool
}

// pickImages returns pick's choice for msgs, whose [1, trust) are the
// messages of the last request. When that request sent no image, pick
// sees only msgs[trust:]: a trusted message's images, not chosen last time
// while nothing else took the budget, are not chosen now that later
// images take some (providers.ImageBudget picks from the end), and a
// first message that is not a tool result and holds no image has none to
// send.
func (c *msgCache) pickImages(msgs []providers.Message, trust int, pick func([]providers.Message) [][]providers.Image) [][]providers.Image {
	if pick == nil {
		return nil
	}
	if trust <= 1 || !c.noneSent || msgs[0].Role == providers.RoleTool || len(msgs[0].Images) > 0 {
		return pick(msgs)
	}
	part := pick(msgs[trust:])
	if part == nil {
		return nil
	}
	sent := make([][]providers.Image, len(msgs))
	copy(sent[trust:], part)
	return sent
}

// cacheEntry is one encoded message. src holds copies of the tool-call
// slice and extras, so that a change made in place to the caller's message
// is seen as a change.
type cacheEntry struct {
	src   providers.Message
	extra bool
	raw   []byte // nil for a message that is not sent
	skip  bool
	// images is the user message sent after this one, the last tool
	// message of its batch, with the batch's images (nil for none), and
	// imageSrc what it was encoded from.
	images   []byte
	imageSrc []imageRef
	// userImages are the images raw holds, for a user message sent with
	// its images (convert_images.go); nil for none.
	userImages []providers.Image
}

// sameWire reports whether two messages encode the same on this wire
// (only the fields it sends).
func sameWire(a, b *providers.Message) bool {
	if a.Role != b.Role || a.Content != b.Content || a.ToolCallID != b.ToolCallID || len(a.ToolCalls) != len(b.ToolCalls) {
		return false
	}
	for i := range a.ToolCalls {
		x, y := &a.ToolCalls[i], &b.ToolCalls[i]
		if x.ID != y.ID || x.Name != y.Name || x.Arguments != y.Arguments || !bytes.Equal(x.Extra, y.Extra) {
			return false
		}
	}
	return true
}

// snapshot copies the wire fields of m that a caller could change in place.
func snapshot(m *providers.Message) providers.Message {
	s := providers.Message{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID}
	if len(m.ToolCalls) > 0 {
		s.ToolCalls = make([]providers.ToolCall, len(m.ToolCalls))
		for i, tc := range m.ToolCalls {
			s.ToolCalls[i] = providers.ToolCall{ID: tc.ID, Name: tc.Name, Arguments: tc.Arguments, Extra: bytes.Clone(tc.Extra)}
		}
	}
	return s
}

// assemble writes {"messages":[m1,m2,…], followed by the fields of head (a
// JSON object), encoding only the messages the cache does not hold. pick
// (nil for none) chooses the images to send with each tool message of a
// list (sentImages; nil for none); they go in a user message after the
// last tool message of their batch.
//
// For an AppendOnly request on the last one's array, the messages both
// share (but the first) are not compared; when neither request sends
// images they are not visited at all. When the last body's buffer is free
// again, the bytes of the messages up to the first one that changed are
// left where they are, so a call writes what the history gained.
func (c *msgCache) assemble(msgs []providers.Message, appendOnly bool, pick func([]providers.Message) [][]providers.Image, withExtra bool, head []byte) (*reqBody, error) {
	if len(head) < 2 || head[0] != '{' {
		return nil, fmt.Errorf("encode the request: head %q is not a JSON object", head)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	ends := c.ends[:min(len(c.ends), len(msgs))]
	trust := 0 // msgs[1:trust] are the messages entries[1:trust] were made from
	var data *providers.Message
	if appendOnly && len(msgs) > 0 {
		data = unsafe.SliceData(msgs)
		if data == c.data && withExtra == c.extra {
			trust = min(len(msgs), len(c.entries), len(ends))
		}
	}
	sent := c.pickImages(msgs, trust, pick)
	// start is the first entry after the first that must be visited: none
	// of [1, start) changes its bytes or images.
	start := 1
	if trust > 1 && sent == nil && !c.images {
		start = trust
	}
	// Set again once the body is written; a failure leaves a cache that
	// trusts nothing of the last request and keeps no bytes of it.
	c.data, c.extra, c.ends = nil, withExtra, c.ends[:0]
	if cap(c.entries) < len(msgs) {
		grown := make([]cacheEntry, len(c.entries), len(msgs))
		copy(grown, c.entries)
		c.entries = grown
	}
	if len(msgs) < len(c.entries) {
		clear(c.entries[len(msgs):]) // a shorter history frees what it dropped
	}
	c.entries = c.entries[:len(msgs)]
	// same is the number of leading entries whose bytes are those of the
	// last body (c.ends holds where each ended in it).
	same := min(len(msgs), len(ends))
	size := len(head) + 16
	if start > 1 {
		size += ends[start-1]
	}
	images := false
	var batch []imageRef // the images of the tool messages of the batch so far
	for i := 0; i < len(msgs); i++ {
		if i == 1 && start > 1 {
			if i = start; i == len(msgs) {
				break
			}
		}
		m, e := &msgs[i], &c.entries[i]
		userImages := userSent(msgs, sent, i)
		if ((i == 0 || i >= trust) && (e.extra != withExtra || (e.raw == nil && !e.skip) || !sameWire(&e.src, m))) || !sameImages(e.userImages, userImages) {
			same = min(same, i)
			v, skip, err := toWire(i, m, withExtra)
			if err != nil {
				e.raw, e.skip = nil, false
				return nil, err
			}
			e.src, e.extra, e.skip, e.raw, e.userImages = snapshot(m), withExtra, skip, nil, nil
			switch {
			case len(userImages) > 0:
				if e.raw, err = encodeUserMessage(m.Content, userImages); err != nil {
					return nil, fmt.Errorf("message %d: %w", i, err)
				}
				e.userImages = userImages
			case !skip:
				if e.raw, err = json.Marshal(v); err != nil {
					return nil, fmt.Errorf("message %d: %w", i, err)
				}
			}
		}
		images = images || len(e.userImages) > 0
		batch = batchImages(batch, msgs, sent, i)
		before := e.images
		if err := e.setImages(msgs, i, batch); err != nil {
			return nil, err
		}
		if len(before) != len(e.images) || unsafe.SliceData(before) != unsafe.SliceData(e.images) {
			same = min(same, i)
		}
		if e.images != nil {
			batch = batch[:0]
			images = true
		}
		size += len(e.raw) + len(e.images) + 2
	}
	out := c.buf[:0]
	if c.open > 0 || cap(out) < size || cap(out) > 2*size+1<<16 {
		out = make([]byte, 0, size+size/8+4096) // room for the history to grow
		c.gen++
		same = 0
	}
	from := 0 // the first entry to write
	if same > 0 {
		out, from = c.buf[:ends[same-1]], same
	} else {
		out = append(out, `{"messages":[`...)
	}
	ends = ends[:from]
	for i := from; i < len(c.entries); i++ {
		e := &c.entries[i]
		if !e.skip {
			if len(out) > len(`{"messages":[`) {
				out = append(out, ',')
			}
			out = append(out, e.raw...)
			if e.images != nil {
				out = append(out, ',')
				out = append(out, e.images...)
			}
		}
		ends = append(ends, len(out))
	}
	out = append(out, ']')
	if len(head) > 2 {
		out = append(out, ',')
	}
	out = append(out, head[1:]...)
	c.buf, c.open, c.data, c.images, c.ends = out, 1, data, images, ends
	c.noneSent = sent == nil
	return &reqBody{c: c, data: out, gen: c.gen}, nil
}
