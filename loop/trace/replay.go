package trace

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"talaria/loop"
	"talaria/providers"
	"talaria/tools"
)

// maxRecordLine caps one line of a recording when reading it.
const maxRecordLine = 64 << 20

// Recording is a parsed recording file.
type Recording struct {
	Header Header
	Lines  []Line
}

// ReadRecording parses a recording; a bad line is an error naming it.
func ReadRecording(path string) (*Recording, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseRecording(f)
}

// ParseRecording reads a recording from r.
func ParseRecording(r io.Reader) (*Recording, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxRecordLine)
	rec := &Recording{}
	n, header := 0, false
	for sc.Scan() {
		n++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		if !header {
			if err := json.Unmarshal(b, &rec.Header); err != nil || rec.Header.Type != "header" {
				return nil, fmt.Errorf("line %d: not a talaria recording header", n)
			}
			if rec.Header.Version != RecordVersion {
				return nil, fmt.Errorf("line %d: recording version %d, this talaria reads version %d", n, rec.Header.Version, RecordVersion)
			}
			header = true
			continue
		}
		var l Line
		if err := json.Unmarshal(b, &l); err != nil {
			return nil, fmt.Errorf("line %d: %v", n, err)
		}
		rec.Lines = append(rec.Lines, l)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line %d: %v", n+1, err)
	}
	if !header {
		return nil, errors.New("empty recording")
	}
	return rec, nil
}

// Divergence is the first point where a replay left its recording.
type Divergence struct {
	// Kind is request, tool or exit.
	Kind string `json:"kind"`
	Turn int    `json:"turn"`
	// Seq is the request's number (request divergences).
	Seq int `json:"seq,omitempty"`
	// Path is where in the request body the two differ.
	Path     string `json:"path,omitempty"`
	Recorded string `json:"recorded"`
	Replayed string `json:"replayed"`
}

// String is the one-paragraph report of the divergence.
func (d *Divergence) String() string {
	where := fmt.Sprintf("turn %d", d.Turn)
	if d.Seq > 0 {
		where += fmt.Sprintf(", request %d", d.Seq)
	}
	if d.Path != "" {
		where += " at " + d.Path
	}
	return fmt.Sprintf("diverged (%s) %s:\n  recorded: %s\n  replayed: %s", d.Kind, where, d.Recorded, d.Replayed)
}

// ReplayOptions configures a replay.
type ReplayOptions struct {
	// Wires builds the transports (the real wire code runs on the
	// recorded bytes).
	Wires *providers.Registry
	// Fast serves the recorded bytes without their timing.
	Fast bool
	// Live, when set, runs the tools for real instead of the recorded
	// results (their names and arguments are still compared).
	Live    *tools.Registry
	ToolEnv tools.Env
	// Sink receives the replay's events.
	Sink loop.Sink
}

// ReplayResult is how a replay went.
type ReplayResult struct {
	Divergence *Divergence `json:"divergence,omitempty"`
	Turns      int         `json:"turns"`
	Requests   int         `json:"requests"`
	ToolCalls  int         `json:"tool_calls"`
	ExitReason string      `json:"exit_reason"`
}

// replayer is the state of one replay run.
type replayer struct {
	rec     *Recording
	fast    bool
	secrets []string
	cancel  context.CancelFunc

	mu       sync.Mutex
	div      *Divergence
	turn     int
	reqs     []Line // recorded requests, by order
	resps    map[int]Line
	next     int // index into reqs of the next request to serve
	tools    []Line
	used     []bool
	served   int
	ranTools int
}

// Replay runs the recorded turns again against the recorded responses and
// reports the first divergence (nil when none).
func Replay(ctx context.Context, rec *Recording, o ReplayOptions) (*ReplayResult, error) {
	if o.Wires == nil {
		return nil, errors.New("replay: no wires")
	}
	h := rec.Header
	if len(h.Chain) == 0 {
		h.Chain = []ChainEntry{{Provider: h.Provider, Model: h.Model, APIMode: h.APIMode, BaseURL: h.BaseURL, Keys: 1}}
	}
	retry := h.Retry.Policy()
	if o.Fast {
		// Backoff waits shrink with the response timing.
		retry.BaseDelay, retry.MaxDelay = time.Millisecond, time.Millisecond
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r := &replayer{rec: rec, fast: o.Fast, cancel: cancel, resps: map[int]Line{}}
	for _, l := range rec.Lines {
		switch l.Type {
		case "request":
			if l.Agent == "" { // a subagent's work is in its delegate_task result
				r.reqs = append(r.reqs, l)
			}
		case "response":
			r.resps[l.Seq] = l
		case "tool":
			r.tools = append(r.tools, l)
		}
	}
	r.used = make([]bool, len(r.tools))
	var backends []providers.Backend
	for i, c := range h.Chain {
		b := providers.Backend{Provider: c.Provider, Model: c.Model, APIMode: c.APIMode, BaseURL: c.BaseURL,
			MaxTokens: c.MaxTokens, ContextLength: c.ContextLength, ReasoningEffort: c.ReasoningEffort}
		for k := range max(1, c.Keys) {
			key := fmt.Sprintf("talaria-replay-key-%d-%d", i, k)
			b.APIKeys = append(b.APIKeys, key)
			r.secrets = append(r.secrets, key)
		}
		backends = append(backends, b)
	}
	if _, err := o.Wires.New(backends[0].APIMode, providers.Endpoint{Provider: backends[0].Provider, Model: backends[0].Model}); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	client := &http.Client{Transport: r}
	reg := tools.NewRegistry()
	for _, d := range h.Tools {
		reg.Register(&standIn{def: d, r: r, live: o.Live})
	}
	res := &ReplayResult{}
	agent := loop.New(loop.Options{
		SessionID: h.SessionID,
		Chain:     providers.NewFallbackChain(backends[0], backends[1:]),
		NewTransport: func(b providers.Backend, key string) (loop.Transport, error) {
			return o.Wires.New(b.APIMode, providers.Endpoint{Provider: b.Provider, Model: b.Model, BaseURL: b.BaseURL, APIKey: key, HTTPClient: client})
		},
		Provider: h.Provider, Model: h.Model,
		SystemPrompt: h.SystemPrompt, History: h.History, Turns: h.Turns,
		Tools: reg, ToolEnv: o.ToolEnv, Sink: o.Sink,
		MaxIterations: h.MaxIterations, MaxTokens: h.MaxTokens, Retry: retry, Guardrails: h.Guardrails,
		Compression: h.Compression, CompressionThreshold: h.CompressionThreshold,
	})
	for _, l := range rec.Lines {
		switch l.Type {
		case "turn":
			r.mu.Lock()
			r.turn = l.Turn
			r.mu.Unlock()
			out, err := agent.Run(ctx, l.Input)
			if err != nil {
				return nil, err
			}
			res.Turns++
			res.ExitReason = out.ExitReason.String()
			r.mu.Lock()
			r.turnDone(l.Turn, out.ExitReason.String())
			r.mu.Unlock()
		}
		if r.divergence() != nil {
			break
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.div == nil && r.next < len(r.reqs) {
		nx := r.reqs[r.next]
		r.diverge(&Divergence{Kind: "request", Turn: nx.Turn, Seq: nx.Seq, Recorded: fmt.Sprintf("%s %s", nx.Method, urlPath(nx.URL)), Replayed: "no further request"})
	}
	res.Divergence, res.Requests, res.ToolCalls = r.div, r.served, r.ranTools
	return res, nil
}

// turnDone compares a finished turn's exit reason with the recording. The
// caller holds r.mu.
func (r *replayer) turnDone(turn int, exit string) {
	for _, l := range r.rec.Lines {
		if l.Type == "finished" && l.Turn == turn && l.ExitReason != exit {
			r.diverge(&Divergence{Kind: "exit", Turn: turn, Recorded: l.ExitReason, Replayed: exit})
			return
		}
	}
}

func (r *replayer) divergence() *Divergence {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.div
}

// diverge keeps the first divergence and stops the run. The caller holds
// r.mu.
func (r *replayer) diverge(d *Divergence) {
	if r.div == nil {
		r.div = d
		r.cancel()
	}
}

// RoundTrip serves the next recorded response, after comparing the request
// with the recorded one.
func (r *replayer) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(io.LimitReader(req.Body, maxRecordedBody+1))
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	r.mu.Lock()
	if r.div != nil {
		r.mu.Unlock()
		return nil, errors.New("replay stopped at a divergence")
	}
	if r.next >= len(r.reqs) {
		r.diverge(&Divergence{Kind: "request", Turn: r.turn, Seq: r.next + 1, Recorded: "no further request", Replayed: req.Method + " " + req.URL.Path})
		r.mu.Unlock()
		return nil, errors.New("replay: the recording has no more requests")
	}
	want := r.reqs[r.next]
	r.next++
	r.served++
	if d := r.compare(want, req, body); d != nil {
		r.diverge(d)
		r.mu.Unlock()
		return nil, errors.New("replay: request diverged")
	}
	resp, ok := r.resps[want.Seq]
	r.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("replay: request %d has no recorded response", want.Seq)
	}
	if resp.Error != "" && resp.Status == 0 {
		return nil, errors.New(resp.Error)
	}
	h := http.Header{}
	for k, v := range resp.Headers {
		h.Set(k, v)
	}
	if r.fast {
		r.shortenRetryAfter(h)
	}
	return &http.Response{StatusCode: resp.Status, Status: fmt.Sprintf("%d %s", resp.Status, http.StatusText(resp.Status)),
		Header: h, Body: &replayBody{ctx: req.Context(), chunks: resp.Chunks, fast: r.fast, start: time.Now(), err: resp.Error},
		Request: req, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, ContentLength: -1}, nil
}

// shortenRetryAfter makes a server-stated wait that the loop honours take
// a millisecond: the loop still sees an honoured wait (a wait over the cap
// is left alone, so the loop falls back as it did).
func (r *replayer) shortenRetryAfter(h http.Header) {
	d, ok := providers.RetryAfter(h, "", time.Now())
	limit := r.rec.Header.Retry.Policy().RetryAfterCap
	if !ok || (limit > 0 && d > limit) {
		return
	}
	h.Del("Retry-After")
	h.Set("Retry-After-Ms", "1")
}

// compare reports how a live request differs from the recorded one. The
// caller holds r.mu.
func (r *replayer) compare(want Line, req *http.Request, body []byte) *Divergence {
	d := &Divergence{Kind: "request", Turn: want.Turn, Seq: want.Seq}
	if req.Method != want.Method || urlPath(r.scrub(req.URL.String())) != urlPath(want.URL) {
		d.Recorded, d.Replayed = want.Method+" "+urlPath(want.URL), req.Method+" "+urlPath(r.scrub(req.URL.String()))
		return d
	}
	var live Line
	setBody(&live, []byte(r.scrub(string(body))))
	if len(want.Body) == 0 || len(live.Body) == 0 {
		if want.BodyText != live.BodyText || string(want.Body) != string(live.Body) {
			d.Recorded, d.Replayed = clip(want.BodyText+string(want.Body), 300), clip(live.BodyText+string(live.Body), 300)
			return d
		}
		return nil
	}
	var a, b any
	_ = json.Unmarshal(want.Body, &a)
	_ = json.Unmarshal(live.Body, &b)
	if path, x, y, differ := firstDiff("$", a, b); differ {
		d.Path, d.Recorded, d.Replayed = path, x, y
		return d
	}
	return nil
}

// scrub redacts the replay's own keys the way the recording redacted the
// real ones.
func (r *replayer) scrub(s string) string {
	for _, k := range r.secrets {
		s = strings.ReplaceAll(s, k, Redacted)
	}
	return s
}

// replayBody yields the recorded chunks, at their recorded offsets unless
// fast.
type replayBody struct {
	ctx    context.Context
	chunks []Chunk
	fast   bool
	start  time.Time
	err    string
	cur    []byte
}

func (b *replayBody) Read(p []byte) (int, error) {
	for len(b.cur) == 0 {
		if len(b.chunks) == 0 {
			if b.err != "" {
				return 0, errors.New(b.err)
			}
			return 0, io.EOF
		}
		c := b.chunks[0]
		b.chunks = b.chunks[1:]
		if !b.fast {
			if wait := time.Until(b.start.Add(time.Duration(c.TMS * float64(time.Millisecond)))); wait > 0 {
				t := time.NewTimer(wait)
				select {
				case <-b.ctx.Done():
					t.Stop()
					return 0, b.ctx.Err()
				case <-t.C:
				}
			}
		}
		b.cur = []byte(c.Data)
	}
	n := copy(p, b.cur)
	b.cur = b.cur[n:]
	return n, nil
}

func (b *replayBody) Close() error { return nil }
