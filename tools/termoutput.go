package tools

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
)

// headTail is an io.Writer that keeps the first and the last bytes of what
// is written to it, up to a total cap, and counts what it drops in between.
type headTail struct {
	mu      sync.Mutex
	headCap int
	head    []byte
	tail    []byte // ring buffer once full
	tailCap int
	tailPos int // next write position in tail once it is full
	total   int
}

// newHeadTail returns a headTail keeping at most capacity bytes: 40% from
// the start of the output, 60% from its end.
func newHeadTail(capacity int) *headTail {
	h := capacity * 2 / 5
	return &headTail{headCap: h, tailCap: capacity - h}
}

// Write implements io.Writer; it never fails.
func (w *headTail) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(p)
	w.total += n
	if room := w.headCap - len(w.head); room > 0 {
		k := min(room, len(p))
		w.head = append(w.head, p[:k]...)
		p = p[k:]
	}
	if len(p) >= w.tailCap {
		w.tail = append(w.tail[:0], p[len(p)-w.tailCap:]...)
		w.tailPos = 0
		return n, nil
	}
	for len(p) > 0 {
		if len(w.tail) < w.tailCap {
			k := min(w.tailCap-len(w.tail), len(p))
			w.tail = append(w.tail, p[:k]...)
			p = p[k:]
			continue
		}
		k := copy(w.tail[w.tailPos:], p)
		w.tailPos = (w.tailPos + k) % w.tailCap
		p = p[k:]
	}
	return n, nil
}

// String returns the kept output as valid UTF-8, with a marker where bytes
// were dropped.
func (w *headTail) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	tail := make([]byte, 0, len(w.tail))
	tail = append(tail, w.tail[w.tailPos:]...)
	tail = append(tail, w.tail[:w.tailPos]...)
	omitted := w.total - len(w.head) - len(tail)
	if omitted <= 0 {
		return strings.ToValidUTF8(string(w.head)+string(tail), "\uFFFD")
	}
	head := w.head
	// Do not show runes cut in half at the edges of the gap.
	for i := 0; i < 3 && len(head) > 0 && !utf8.FullRune(head[lastRuneStart(head):]); i++ {
		head = head[:lastRuneStart(head)]
	}
	for i := 0; i < 3 && len(tail) > 0 && !utf8.RuneStart(tail[0]); i++ {
		tail = tail[1:]
	}
	omitted = w.total - len(head) - len(tail)
	return strings.ToValidUTF8(string(head), "\uFFFD") +
		fmt.Sprintf("\n[… %d bytes omitted …]\n", omitted) +
		strings.ToValidUTF8(string(tail), "\uFFFD")
}

// lastRuneStart returns the index of the start of the last rune in b.
func lastRuneStart(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-4; i-- {
		if utf8.RuneStart(b[i]) {
			return i
		}
	}
	return len(b) - 1
}

// outputRing is an io.Writer that keeps the last bytes written to it, up
// to a cap, and knows the absolute offset of what it keeps, so that readers
// can ask for what came after a point they saw before.
type outputRing struct {
	mu    sync.Mutex
	cap   int
	buf   []byte // the kept bytes; grows to 2*cap before it is trimmed
	total int64  // bytes written ever
}

// newOutputRing returns an outputRing keeping the last capacity bytes.
func newOutputRing(capacity int) *outputRing {
	return &outputRing{cap: capacity}
}

// Write implements io.Writer; it never fails.
func (r *outputRing) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.total += int64(len(p))
	if len(p) >= r.cap {
		r.buf = append(r.buf[:0], p[len(p)-r.cap:]...)
		return len(p), nil
	}
	if len(r.buf)+len(p) > 2*r.cap {
		keep := r.cap - len(p)
		n := copy(r.buf, r.buf[len(r.buf)-keep:])
		r.buf = r.buf[:n]
	}
	r.buf = append(r.buf, p...)
	return len(p), nil
}

// since returns the kept output written at or after the absolute offset
// off (at most the last cap bytes), the offset it starts at (greater than
// off when older bytes were dropped) and the offset it ends at: the total
// written so far, less a rune still incomplete at the end.
func (r *outputRing) since(off int64) (data string, start, end int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	first := r.total - int64(len(r.buf))
	if keep := int64(r.cap); int64(len(r.buf)) > keep {
		first = r.total - keep
	}
	start = max(off, first)
	if start > r.total {
		start = r.total
	}
	b := r.buf[len(r.buf)-int(r.total-start):]
	// Do not start in the middle of a rune.
	for i := 0; i < 3 && len(b) > 0 && !utf8.RuneStart(b[0]); i++ {
		b = b[1:]
		start++
	}
	end = r.total
	if len(b) > 0 {
		if ls := lastRuneStart(b); !utf8.FullRune(b[ls:]) && len(b)-ls < utf8.UTFMax {
			end -= int64(len(b) - ls)
			b = b[:ls]
		}
	}
	return strings.ToValidUTF8(string(b), "\uFFFD"), start, end
}
