package openaichat

import (
	"bytes"
	"io"
	"sync"
)

// reqBody is a request body written in msgCache's buffer, which a later
// call writes again. net/http may read a request's body after Do returned
// (it writes the body on its own goroutine) and more than once (GetBody,
// for a redirect or a retry on a new connection), so every read goes
// through a reader from Open, and the buffer is written again only once
// the body was released (after Do returned) and every reader opened has
// been closed: the HTTP client closes a request's body when it is done
// with it, errors included. A reader never closed only costs the next
// call a new buffer.
type reqBody struct {
	c    *msgCache
	data []byte
	gen  uint64 // the buffer's number (msgCache.gen)
	once sync.Once
}

// Len is the body's length, the request's Content-Length.
func (b *reqBody) Len() int { return len(b.data) }

// Open returns a new reader of the body, counted as a user of the buffer
// until closed.
func (b *reqBody) Open() io.ReadCloser {
	b.use(1)
	return &bodyReader{b: b, r: bytes.NewReader(b.data)}
}

// Release ends the body's own use of the buffer; its open readers keep
// theirs. Call it once Do returned: net/http opens readers (GetBody) only
// within Do, and no reader may be opened after Release.
func (b *reqBody) Release() { b.once.Do(func() { b.use(-1) }) }

// Bytes gives the body's bytes away for good: the cache writes no later
// body in them. For callers that keep the bytes (tests).
func (b *reqBody) Bytes() []byte {
	b.c.mu.Lock()
	if b.gen == b.c.gen {
		b.c.buf, b.c.open = nil, 0
		b.c.gen++
	}
	b.c.mu.Unlock()
	return b.data
}

// use adds d to the buffer's users when it is still the cache's buffer.
func (b *reqBody) use(d int) {
	b.c.mu.Lock()
	if b.gen == b.c.gen {
		b.c.open += d
	}
	b.c.mu.Unlock()
}

// bodyReader reads a reqBody until closed. Read and Close hold its mutex,
// so once Close has returned no Read is touching the buffer, whatever
// goroutines net/http reads and closes from.
type bodyReader struct {
	mu sync.Mutex
	b  *reqBody
	r  *bytes.Reader // nil once closed
}

// Read reads from the body; a closed reader reads nothing.
func (r *bodyReader) Read(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.r == nil {
		return 0, io.ErrClosedPipe
	}
	return r.r.Read(p)
}

// Close ends the reader and, the first time, its use of the buffer.
func (r *bodyReader) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.r != nil {
		r.r = nil
		r.b.use(-1)
	}
	return nil
}
