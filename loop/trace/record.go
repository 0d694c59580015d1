package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"talaria/loop"
	"talaria/providers"
)

// RecordVersion is the version of the recording format (the header line's
// "version"); a replayer refuses a version it does not know.
const RecordVersion = 1

// Redacted stands in for every key header and key value in a recording.
const Redacted = "[REDACTED]"

// maxRecordedBody caps one recorded request or response body; beyond it the
// line says truncated and a replay of it reports a divergence.
const maxRecordedBody = 32 << 20

// Recorder writes a run as JSON Lines: the header, every provider request
// and raw response (with per-chunk timing), every tool result, each turn's
// input and exit reason. Key headers and every known key value are
// redacted. It is safe for concurrent use; a write error stops the
// recording (Err reports it) and never the run.
type Recorder struct {
	mu      sync.Mutex
	w       *bufio.Writer
	f       io.Closer
	secrets []string
	seq     int
	turn    int
	err     error
	calls   map[string]providers.ToolCall // id → the assistant's call
	failed  map[string]bool               // id → the tool reported an error
	// mask, when set, masks every line as it is written (record_mask.go).
	mask *loop.Masking
}

// NewRecorder creates path and writes the header. secrets are the key
// values to redact wherever they appear; mask (nil: none) masks every line
// written with the session's rules (URL credentials, key shapes, a key
// split across streamed values).
func NewRecorder(path string, h Header, secrets []string, mask *loop.Masking) (*Recorder, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("--record: %w", err)
	}
	r := newRecorder(f, f, secrets)
	r.mask = mask
	h.Type, h.Version = "header", RecordVersion
	if h.Created.IsZero() {
		h.Created = time.Now().UTC()
	}
	r.write(h)
	if r.err != nil {
		f.Close()
		return nil, fmt.Errorf("--record: %w", r.err)
	}
	return r, nil
}

func newRecorder(w io.Writer, c io.Closer, secrets []string) *Recorder {
	var keep []string
	for _, s := range secrets {
		if len(s) >= 4 { // shorter values would redact ordinary text
			keep = append(keep, s)
		}
	}
	return &Recorder{w: bufio.NewWriterSize(w, 64<<10), f: c, secrets: keep,
		calls: map[string]providers.ToolCall{}, failed: map[string]bool{}}
}

// AddSecret adds a key value to redact (a key first used after the start).
func (r *Recorder) AddSecret(s string) {
	if len(s) < 4 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, k := range r.secrets {
		if k == s {
			return
		}
	}
	r.secrets = append(r.secrets, s)
}

// Err returns the first write error.
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// Close flushes and closes the file.
func (r *Recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.w != nil {
		if err := r.w.Flush(); err != nil && r.err == nil {
			r.err = err
		}
		r.w = nil
	}
	if r.f != nil {
		if err := r.f.Close(); err != nil && r.err == nil {
			r.err = err
		}
		r.f = nil
	}
	return r.err
}

// write appends one line, masked; the caller holds no lock. It is the
// recorder's one write point.
func (r *Recorder) write(v any) {
	if l, ok := v.(Line); ok && r.mask != nil && len(l.Chunks) > 0 {
		l.Chunks = maskChunks(r.mask, l.Chunks)
		v = l
	}
	b, err := json.Marshal(v)
	if err == nil && r.mask != nil {
		b = maskRecordLine(r.mask, b)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil || r.w == nil {
		return
	}
	if err != nil {
		r.err = err
		return
	}
	b = r.redact(b)
	b = append(b, '\n')
	if _, err := r.w.Write(b); err != nil {
		r.err = err
		return
	}
	r.err = r.w.Flush() // a crash keeps what was recorded
}

// redact replaces every secret, raw or JSON-escaped, in b. The caller holds
// r.mu.
func (r *Recorder) redact(b []byte) []byte {
	for _, s := range r.secrets {
		if bytes.Contains(b, []byte(s)) {
			b = bytes.ReplaceAll(b, []byte(s), []byte(Redacted))
		}
		if q, _ := json.Marshal(s); len(q) > 2 && string(q[1:len(q)-1]) != s {
			b = bytes.ReplaceAll(b, q[1:len(q)-1], []byte(Redacted))
		}
	}
	return b
}

// Wrap returns a Sink that records turn inputs, tool results and exit
// reasons and passes events on to next.
func (r *Recorder) Wrap(next loop.Sink) loop.Sink {
	return func(e loop.Event) {
		switch e := e.(type) {
		case *loop.TurnStarted:
			r.mu.Lock()
			r.turn = e.Turn
			r.mu.Unlock()
			r.write(Line{Type: "turn", Turn: e.Turn, Input: e.Input})
		case *loop.ToolCompleted:
			r.mu.Lock()
			r.failed[e.ID] = !e.OK
			r.mu.Unlock()
		case *loop.TurnFinished:
			r.write(Line{Type: "finished", Turn: e.Turn, ExitReason: e.ExitReason.String()})
		}
		if next != nil {
			next(e)
		}
	}
}

// WrapStore returns a loop.Store that records each tool result as the loop
// saves it (the whole result, as the model gets it) and passes it on. When
// next also offers the optional methods the loop looks for (the one-commit
// turn end, usage with cost, compaction snapshots), so does the wrapper:
// hiding them would make a recorded session lose its cost and snapshots.
func (r *Recorder) WrapStore(next loop.Store) loop.Store {
	if full, ok := next.(fullStore); ok {
		return &recFullStore{recStore{r: r, next: next}, full}
	}
	return &recStore{r: r, next: next}
}

// fullStore is a loop.Store with the optional methods the loop uses.
type fullStore interface {
	SaveTurnEnd(sessionID string, turn int, msgs []providers.Message, apiCalls int, u providers.Usage, costUSD float64) error
	AddUsageCost(sessionID string, apiCalls int, u providers.Usage, costUSD float64) error
	SaveSnapshot(sessionID string, msgs []providers.Message) error
}

// recFullStore is recStore over a fullStore.
type recFullStore struct {
	recStore
	full fullStore
}

// SaveTurnEnd records the turn's last messages and passes them on.
func (s *recFullStore) SaveTurnEnd(id string, turn int, msgs []providers.Message, apiCalls int, u providers.Usage, costUSD float64) error {
	for _, m := range msgs {
		s.r.message(m)
	}
	return s.full.SaveTurnEnd(id, turn, msgs, apiCalls, u, costUSD)
}

// AddUsageCost passes usage and cost on.
func (s *recFullStore) AddUsageCost(id string, apiCalls int, u providers.Usage, costUSD float64) error {
	return s.full.AddUsageCost(id, apiCalls, u, costUSD)
}

// SaveSnapshot passes a compacted history on (its messages were recorded
// as they were first saved).
func (s *recFullStore) SaveSnapshot(id string, msgs []providers.Message) error {
	return s.full.SaveSnapshot(id, msgs)
}

type recStore struct {
	r    *Recorder
	next loop.Store
}

func (s *recStore) AppendMessages(id string, turn int, msgs ...providers.Message) error {
	for _, m := range msgs {
		s.r.message(m)
	}
	if s.next == nil {
		return nil
	}
	return s.next.AppendMessages(id, turn, msgs...)
}

func (s *recStore) AddUsage(id string, apiCalls int, u providers.Usage) error {
	if s.next == nil {
		return nil
	}
	return s.next.AddUsage(id, apiCalls, u)
}

func (r *Recorder) message(m providers.Message) {
	switch m.Role {
	case providers.RoleAssistant:
		r.mu.Lock()
		for _, c := range m.ToolCalls {
			r.calls[c.ID] = c
		}
		r.mu.Unlock()
	case providers.RoleTool:
		r.mu.Lock()
		c, ok := r.calls[m.ToolCallID]
		failed, turn := r.failed[m.ToolCallID], r.turn
		delete(r.calls, m.ToolCallID)
		delete(r.failed, m.ToolCallID)
		r.mu.Unlock()
		name := m.ToolName
		if ok && name == "" {
			name = c.Name
		}
		r.write(Line{Type: "tool", Turn: turn, ID: m.ToolCallID, Name: name, Arguments: c.Arguments, Output: m.Content, IsError: failed})
	}
}

// Transport wraps base (nil: http.DefaultTransport) so every request and
// response through it is recorded; wire is the api_mode it serves.
func (r *Recorder) Transport(base http.RoundTripper, wire, model string) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &recTransport{r: r, base: base, wire: wire, model: model}
}

// SubagentTransport is Transport for the calls of the subagent agent (a
// delegate_task child's session id): its lines name the agent.
func (r *Recorder) SubagentTransport(base http.RoundTripper, wire, model, agent string) http.RoundTripper {
	t := r.Transport(base, wire, model).(*recTransport)
	t.agent = agent
	return t
}

type recTransport struct {
	r           *Recorder
	base        http.RoundTripper
	wire, model string
	agent       string // the subagent whose calls these are ("": the session's own)
}

func (t *recTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.r.mu.Lock()
	t.r.seq++
	seq, turn := t.r.seq, t.r.turn
	t.r.mu.Unlock()
	line := Line{Type: "request", Turn: turn, Seq: seq, Method: req.Method, URL: req.URL.String(), Wire: t.wire, Model: t.model,
		Headers: recordHeaders(req.Header, true), Agent: t.agent}
	if req.Body != nil && req.Body != http.NoBody {
		body, err := io.ReadAll(io.LimitReader(req.Body, maxRecordedBody+1))
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		setBody(&line, body)
		if m := bodyModel(body); m != "" {
			line.Model = m
		}
	}
	t.r.write(line)
	start := time.Now()
	resp, err := t.base.RoundTrip(req)
	out := Line{Type: "response", Turn: turn, Seq: seq, Agent: t.agent}
	if err != nil {
		out.Error = err.Error()
		out.TMS = ms(time.Since(start))
		t.r.write(out)
		return nil, err
	}
	out.Status, out.Headers = resp.StatusCode, recordHeaders(resp.Header, false)
	resp.Body = &recBody{rc: resp.Body, r: t.r, line: out, start: start}
	return resp, nil
}

func setBody(l *Line, body []byte) {
	if len(body) > maxRecordedBody {
		body, l.Truncated = body[:maxRecordedBody], true
	}
	if json.Valid(body) {
		l.Body = json.RawMessage(bytes.Clone(body))
		return
	}
	l.BodyText = string(body)
}

// bodyModel reads the "model" field of a JSON request body.
func bodyModel(body []byte) string {
	var v struct {
		Model string `json:"model"`
	}
	_ = json.Unmarshal(body, &v)
	return v.Model
}

func recordHeaders(h http.Header, request bool) map[string]string {
	out := map[string]string{}
	for k, vs := range h {
		ck := http.CanonicalHeaderKey(k)
		v := strings.Join(vs, ", ")
		if request {
			if isKeyHeader(ck) {
				v = Redacted
			}
		} else if !keepResponseHeader(ck) {
			continue
		}
		out[ck] = v
	}
	return out
}

// isKeyHeader reports a request header that carries credentials.
func isKeyHeader(k string) bool {
	lk := strings.ToLower(k)
	switch lk {
	case "authorization", "x-api-key", "x-goog-api-key", "api-key", "proxy-authorization", "cookie",
		"x-amz-security-token", "ocp-apim-subscription-key":
		return true
	}
	return strings.Contains(lk, "api-key") || strings.Contains(lk, "token") || strings.Contains(lk, "secret")
}

// keepResponseHeader keeps the response headers replay and classification
// need (content type, retry and rate-limit hints, request ids).
func keepResponseHeader(k string) bool {
	lk := strings.ToLower(k)
	return lk == "content-type" || lk == "retry-after" || lk == "retry-after-ms" || strings.HasPrefix(lk, "x-ratelimit") ||
		strings.HasPrefix(lk, "anthropic-ratelimit") || lk == "x-request-id" || lk == "request-id" ||
		lk == "x-amzn-errortype" || lk == "x-amzn-requestid" || lk == "x-should-retry"
}

// recBody records a response body's reads as chunks and writes the
// response line when the body ends or is closed.
type recBody struct {
	rc    io.ReadCloser
	r     *Recorder
	line  Line
	start time.Time
	size  int
	once  sync.Once
}

func (b *recBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if n > 0 && b.size < maxRecordedBody {
		b.size += n
		b.line.Chunks = append(b.line.Chunks, Chunk{TMS: ms(time.Since(b.start)), Data: string(p[:n])})
	} else if n > 0 {
		b.line.Truncated = true
	}
	if err != nil {
		if err != io.EOF {
			b.line.Error = err.Error()
		}
		b.done()
	}
	return n, err
}

func (b *recBody) Close() error {
	b.done()
	return b.rc.Close()
}

func (b *recBody) done() {
	b.once.Do(func() {
		b.line.TMS = ms(time.Since(b.start))
		b.r.write(b.line)
	})
}
