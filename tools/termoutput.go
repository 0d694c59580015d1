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
