package providers

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"talaria/providers/sse"
)

// Timeouts bounds each phase of a provider call. A zero field disables
// that bound.
type Timeouts struct {
	// Request bounds the wait for the response headers
	// (agent.request_timeout).
	Request time.Duration
	// StreamRead bounds the wait for the next byte of the body
	// (agent.stream_read_timeout).
	StreamRead time.Duration
	// StreamStale bounds how long an event stream may send only
	// keep-alives (comments, ping events, empty data) and no content
	// (agent.stream_stale_timeout).
	StreamStale time.Duration
}

// DefaultTimeouts are the documented defaults: 120s for headers, 120s
// without a byte, 300s of keep-alives only.
func DefaultTimeouts() Timeouts {
	return Timeouts{Request: 120 * time.Second, StreamRead: 120 * time.Second, StreamStale: 300 * time.Second}
}

// Timeout phases, as named in TimeoutError.Phase.
const (
	PhaseRequest     = "request"
	PhaseStreamRead  = "stream_read"
	PhaseStreamStale = "stream_stale"
)

// TimeoutError is a provider call cut by one of the Timeouts. It is a
// net.Error whose Timeout() is true, so it classifies as a timeout.
type TimeoutError struct {
	// Phase is PhaseRequest, PhaseStreamRead or PhaseStreamStale.
	Phase string
	// After is the bound that expired.
	After time.Duration
}

// Error says what expired and which config key sets it.
func (e *TimeoutError) Error() string {
	switch e.Phase {
	case PhaseRequest:
		return fmt.Sprintf("timed out waiting %s for response headers (agent.request_timeout)", e.After)
	case PhaseStreamRead:
		return fmt.Sprintf("timed out: the stream sent nothing for %s (agent.stream_read_timeout)", e.After)
	default:
		return fmt.Sprintf("timed out: the stream sent only keep-alives, no content, for %s (agent.stream_stale_timeout)", e.After)
	}
}

// Timeout reports true: this is a timeout.
func (e *TimeoutError) Timeout() bool { return true }

// Temporary reports true: a timeout is worth retrying.
func (e *TimeoutError) Temporary() bool { return true }

// NewTimeoutTransport wraps next (nil means http.DefaultTransport) so every
// request it carries is bounded by t. The bytes of the body pass through
// unchanged; only their timing is watched. A cancelled request context
// still cuts any wait at once, with the context's own error.
func NewTimeoutTransport(next http.RoundTripper, t Timeouts) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return &timeoutTransport{next: next, t: t}
}

type timeoutTransport struct {
	next http.RoundTripper
	t    Timeouts
}

// RoundTrip implements http.RoundTripper.
func (tt *timeoutTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancel(req.Context())
	w := &watchdog{cancel: cancel}
	w.arm(&w.request, PhaseRequest, tt.t.Request)
	resp, err := tt.next.RoundTrip(req.WithContext(ctx))
	w.disarm(w.request)
	if te := w.expired(); te != nil {
		if resp != nil {
			resp.Body.Close()
		}
		cancel()
		return nil, te
	}
	if err != nil {
		cancel()
		return nil, err
	}
	w.arm(&w.read, PhaseStreamRead, tt.t.StreamRead)
	b := &watchedBody{rc: resp.Body, w: w, t: tt.t}
	if sse.IsEventStream(resp.Header.Get("Content-Type")) && tt.t.StreamStale > 0 {
		b.sse = &sseScan{}
		w.arm(&w.stale, PhaseStreamStale, tt.t.StreamStale)
	}
	resp.Body = b
	return resp, nil
}

// watchdog holds the timers of one request; the first to expire cancels
// the request's context and is remembered as the cause.
type watchdog struct {
	cancel               context.CancelFunc
	mu                   sync.Mutex
	fired                *TimeoutError
	request, read, stale *time.Timer
}

func (w *watchdog) arm(slot **time.Timer, phase string, d time.Duration) {
	if d <= 0 {
		return
	}
	*slot = time.AfterFunc(d, func() {
		w.mu.Lock()
		if w.fired == nil {
			w.fired = &TimeoutError{Phase: phase, After: d}
		}
		w.mu.Unlock()
		w.cancel()
	})
}

func (w *watchdog) disarm(t *time.Timer) {
	if t != nil {
		t.Stop()
	}
}

func (w *watchdog) expired() *TimeoutError {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.fired
}

// watchedBody is a response body whose reads restart the read timer and,
// for an event stream, whose content events restart the stale timer.
type watchedBody struct {
	rc   io.ReadCloser
	w    *watchdog
	t    Timeouts
	sse  *sseScan
	once sync.Once
}

// Read implements io.Reader: after a timer expired, every read fails with
// its TimeoutError.
func (b *watchedBody) Read(p []byte) (int, error) {
	if te := b.w.expired(); te != nil {
		return 0, te
	}
	n, err := b.rc.Read(p)
	if n > 0 {
		if b.w.read != nil {
			b.w.read.Reset(b.t.StreamRead)
		}
		if b.sse != nil && b.sse.feed(p[:n]) {
			b.w.stale.Reset(b.t.StreamStale)
		}
	}
	if err != nil {
		if te := b.w.expired(); te != nil {
			return n, te
		}
	}
	return n, err
}

// Close stops the timers and releases the request.
func (b *watchedBody) Close() error {
	b.once.Do(func() {
		b.w.disarm(b.w.read)
		b.w.disarm(b.w.stale)
	})
	err := b.rc.Close()
	b.w.cancel()
	return err
}

// linePrefix is how much of a line the scanner keeps to judge it: enough
// for `data: {"type": "ping"}`; a longer data line is content.
const linePrefix = 64

// sseScan follows the lines of an event stream to tell content from
// keep-alives. It keeps at most linePrefix bytes of a line.
type sseScan struct {
	prefix  []byte
	decided bool // the current line has been judged
	ping    bool // the event being read is named "ping"
}

// feed consumes a chunk and reports whether it held content: a data line
// that is not empty and not part of a ping.
func (s *sseScan) feed(b []byte) bool {
	content := false
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		seg := b
		if i >= 0 {
			seg, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if !s.decided {
			room := linePrefix - len(s.prefix)
			s.prefix = append(s.prefix, seg[:min(room, len(seg))]...)
			if len(s.prefix) >= linePrefix && s.judge(false) {
				content = true
			}
		}
		if i >= 0 {
			if !s.decided && s.judge(true) {
				content = true
			}
			s.prefix, s.decided = s.prefix[:0], false
		}
	}
	return content
}

// judge decides the current line; whole is false when only its prefix is
// known (the line is long). It allocates nothing.
func (s *sseScan) judge(whole bool) bool {
	s.decided = true
	line := bytes.TrimRight(s.prefix, "\r")
	field, value, _ := bytes.Cut(line, []byte(":"))
	value = bytes.TrimPrefix(value, []byte(" "))
	switch {
	case len(line) == 0:
		s.ping = false
		return false
	case string(field) == "event":
		s.ping = whole && string(bytes.TrimSpace(value)) == "ping"
		return false
	case string(field) != "data":
		return false // a comment (":..."), id:, retry:
	case !whole:
		return true
	case s.ping || len(bytes.TrimSpace(value)) == 0:
		return false
	}
	return !isPingData(value)
}

// isPingData reports a data payload that is only a ping object, spaces
// aside.
func isPingData(v []byte) bool {
	const ping = `{"type":"ping"}`
	i := 0
	for _, c := range v {
		switch {
		case c == ' ' || c == '\t':
		case i < len(ping) && c == ping[i]:
			i++
		default:
			return false
		}
	}
	return i == len(ping)
}
