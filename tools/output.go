package tools

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Pacing and limits of live output (see OutputStream).
const (
	// OutputInterval is the least time between two output events of one
	// call: about ten a second.
	OutputInterval = 100 * time.Millisecond
	// outputPartialWait is how long a line without its newline waits for
	// the rest before it is shown as it is.
	outputPartialWait = 200 * time.Millisecond
	// outputPendingCap bounds what waits for the next event; when a tool
	// prints faster, the oldest waiting bytes are skipped (the tool's
	// result still has its whole output).
	outputPendingCap = 64 << 10
	// outputTailCap is how much of the end of the stream is kept for a
	// cancellation receipt.
	outputTailCap = 4 << 10
)

// OutputStream carries the live output of one running call to an emit
// function, coalesced to one call of emit per OutputInterval at most. Write
// never blocks on emit: what arrives while an event is due waits in a
// bounded buffer, and when that is full its oldest whole lines are skipped
// with a marker. emit is called from one goroutine at a time and in the
// order of the writes; after Close returns it is not called again. Lines are
// passed on whole: a line without its newline waits up to ~200 ms for the
// rest.
type OutputStream struct {
	emit     func(string)
	interval time.Duration

	emitMu sync.Mutex // held while emit runs: one event at a time, in order

	mu        sync.Mutex
	pending   []byte
	skipped   int       // bytes dropped from pending since the last event
	partialAt time.Time // when the unterminated end of pending began
	lastEmit  time.Time
	armed     bool // a flush is scheduled
	closed    bool
	tail      []byte // the last outputTailCap bytes ever written
}

// NewOutputStream returns a stream that passes output to emit.
func NewOutputStream(emit func(text string)) *OutputStream {
	return &OutputStream{emit: emit, interval: OutputInterval}
}

// Write implements io.Writer. It never blocks on the consumer and never
// fails; after Close it drops p.
func (s *OutputStream) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keepTail(p)
	if s.closed {
		return len(p), nil
	}
	if len(s.pending) == 0 || s.pending[len(s.pending)-1] == '\n' {
		s.partialAt = time.Now()
	}
	s.pending = append(s.pending, p...)
	if over := len(s.pending) - outputPendingCap; over > 0 {
		cut := over
		if i := bytes.IndexByte(s.pending[over:], '\n'); i >= 0 && i < outputPendingCap/2 {
			cut = over + i + 1 // skip whole lines where it can
		}
		s.skipped += cut
		s.pending = append(s.pending[:0], s.pending[cut:]...)
	}
	if !s.armed {
		s.armed = true
		time.AfterFunc(max(0, time.Until(s.lastEmit.Add(s.interval))), s.flush)
	}
	return len(p), nil
}

// keepTail remembers the end of the stream for Tail. s.mu is held.
func (s *OutputStream) keepTail(p []byte) {
	if len(p) >= outputTailCap {
		s.tail = append(s.tail[:0], p[len(p)-outputTailCap:]...)
		return
	}
	if over := len(s.tail) + len(p) - outputTailCap; over > 0 {
		s.tail = append(s.tail[:0], s.tail[over:]...)
	}
	s.tail = append(s.tail, p...)
}

// Tail returns the last few KiB the tool wrote, as valid UTF-8.
func (s *OutputStream) Tail() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.tail
	for i := 0; i < 3 && len(b) > 0 && !utf8.RuneStart(b[0]); i++ {
		b = b[1:]
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// flush emits what is due: the complete lines waiting, and an unterminated
// line once it has waited outputPartialWait. It re-arms itself for a
// partial line that must wait longer.
func (s *OutputStream) flush() {
	s.emitMu.Lock()
	defer s.emitMu.Unlock()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.armed = false
	now := time.Now()
	n := len(s.pending)
	if n > 0 && s.pending[n-1] != '\n' && now.Sub(s.partialAt) < outputPartialWait {
		n = bytes.LastIndexByte(s.pending, '\n') + 1
	}
	n = runeCut(s.pending, n)
	text := s.take(n)
	if len(s.pending) > 0 {
		s.armed = true
		wait := max(s.interval, outputPartialWait-now.Sub(s.partialAt))
		time.AfterFunc(wait, s.flush)
	}
	if text != "" {
		s.lastEmit = now
	}
	s.mu.Unlock()
	if text != "" {
		s.emit(text)
	}
}

// take removes the first n bytes of pending and returns them, with a
// marker for skipped bytes before them. s.mu is held.
func (s *OutputStream) take(n int) string {
	if n == 0 && s.skipped == 0 {
		return ""
	}
	text := string(s.pending[:n])
	s.pending = append(s.pending[:0], s.pending[n:]...)
	if s.skipped > 0 {
		text = fmt.Sprintf("[… %d bytes not shown live …]\n", s.skipped) + text
		s.skipped = 0
	}
	return strings.ToValidUTF8(text, "\uFFFD")
}

// runeCut moves the cut n of b back so that it does not split a rune.
func runeCut(b []byte, n int) int {
	if n <= 0 || n >= len(b) {
		return max(n, 0)
	}
	for i := 0; i < utf8.UTFMax && n > 0 && !utf8.RuneStart(b[n]); i++ {
		n--
	}
	return n
}

// Close emits what is still waiting, partial line included, and stops the
// stream: it returns after the last call of emit has returned. Close is
// safe to call more than once.
func (s *OutputStream) Close() {
	s.emitMu.Lock()
	defer s.emitMu.Unlock()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	text := s.take(len(s.pending))
	s.mu.Unlock()
	if text != "" {
		s.emit(text)
	}
}

// callIO is what the executor gives one running call through its context:
// where its live output goes and where its diff is recorded.
type callIO struct {
	out io.Writer // nil: output is not watched

	mu   sync.Mutex
	diff []string
}

type callIOKey struct{}

// withCallIO returns ctx carrying io for the tool it is passed to.
func withCallIO(ctx context.Context, io *callIO) context.Context {
	return context.WithValue(ctx, callIOKey{}, io)
}

// ContextWithOutput returns ctx whose tool writes its live output to w (see
// Output). The executor sets it for every call; tools that run tools, and
// tests, use it directly.
func ContextWithOutput(ctx context.Context, w io.Writer) context.Context {
	return withCallIO(ctx, &callIO{out: w})
}

// Output returns where a tool writes what it prints while it runs (a
// command's stdout and stderr, a child agent's progress lines). It is
// io.Discard when nobody watches. Writes are cheap and never block for long;
// the final Result must still hold the output the model reads.
func Output(ctx context.Context) io.Writer {
	if c, ok := ctx.Value(callIOKey{}).(*callIO); ok && c.out != nil {
		return c.out
	}
	return io.Discard
}

// ReportDiff records the unified diff of a change a tool is about to make
// (write_file, patch), for tool.completed. A tool that changes several files
// reports each.
func ReportDiff(ctx context.Context, diff string) {
	c, ok := ctx.Value(callIOKey{}).(*callIO)
	if !ok || diff == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.diff = append(c.diff, strings.TrimSuffix(diff, "\n"))
}

// diffText returns the recorded diffs, one after another.
func (c *callIO) diffText() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.diff) == 0 {
		return ""
	}
	return strings.Join(c.diff, "\n") + "\n"
}

// prefixWriter puts prefix before every line written through it.
type prefixWriter struct {
	w      io.Writer
	prefix string
	mu     sync.Mutex
	mid    bool // the last write ended inside a line
}

// WithOutputPrefix returns ctx whose tool output is w's with prefix at the
// start of every line, e.g. "[2] " for the second task of a delegation.
func WithOutputPrefix(ctx context.Context, prefix string) context.Context {
	w := Output(ctx)
	if w == io.Discard {
		return ctx
	}
	return ContextWithOutput(ctx, &prefixWriter{w: w, prefix: prefix})
}

// Write implements io.Writer.
func (p *prefixWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []byte
	for _, line := range bytes.SplitAfter(b, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		if !p.mid {
			out = append(out, p.prefix...)
		}
		out = append(out, line...)
		p.mid = line[len(line)-1] != '\n'
	}
	if _, err := p.w.Write(out); err != nil {
		return 0, err
	}
	return len(b), nil
}
