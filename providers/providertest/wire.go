package providertest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"talaria/providers"
)

// This file holds the helpers that the wire transports' own tests share
// (providers/anthropic, responses, openaichat, bedrock, gemini): a server
// that answers with a fixed reply and records the requests, fixtures, and
// a delta collector.

// Captured is one request as a WireServer saw it.
type Captured struct {
	Method string
	// Path is the URL path, unescaped; RawPath is the path as sent.
	Path    string
	RawPath string
	// Query is the raw query, without '?'.
	Query  string
	Header http.Header
	// Raw is the request body; Body is Raw decoded, when it is a JSON
	// object.
	Raw  []byte
	Body map[string]any
}

// WireReply is what a WireServer answers every request with.
type WireReply struct {
	// Status is the HTTP status; 0 means 200.
	Status int
	// Defaults, when set, gives the headers set first for a request; nil
	// means "Content-Type: text/event-stream".
	Defaults func(*http.Request) http.Header
	// Headers are set over the defaults. An empty Content-Type means no
	// Content-Type header at all (and none sniffed).
	Headers map[string]string
	Body    []byte
	// Hold, when set, is waited on after the headers and the first HoldAt
	// bytes of Body have been written and flushed; when the request ends
	// first, nothing more is written.
	Hold   chan struct{}
	HoldAt int
}

// WireServer is an httptest server answering every request with one
// WireReply and recording the requests.
type WireServer struct {
	*httptest.Server
	reqs  chan Captured
	count atomic.Int32
}

// StartWire starts a WireServer answering every request with rep; it is
// closed when the test ends.
func StartWire(t testing.TB, rep WireReply) *WireServer {
	t.Helper()
	s := &WireServer{reqs: make(chan Captured, 16)}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.count.Add(1)
		raw, _ := io.ReadAll(r.Body)
		c := Captured{Method: r.Method, Path: r.URL.Path, RawPath: r.URL.EscapedPath(), Query: r.URL.RawQuery,
			Header: r.Header.Clone(), Raw: raw}
		_ = json.Unmarshal(raw, &c.Body)
		select {
		case s.reqs <- c:
		default:
		}
		writeReply(w, r, rep)
	}))
	t.Cleanup(s.Close)
	return s
}

func writeReply(w http.ResponseWriter, r *http.Request, rep WireReply) {
	if rep.Defaults != nil {
		for k, v := range rep.Defaults(r) {
			w.Header()[k] = v
		}
	} else {
		w.Header().Set("Content-Type", "text/event-stream")
	}
	for k, v := range rep.Headers {
		w.Header().Set(k, v)
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header()["Content-Type"] = nil // none, and no sniffing
	}
	status := rep.Status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	body := rep.Body
	if rep.Hold != nil {
		_, _ = w.Write(body[:rep.HoldAt])
		w.(http.Flusher).Flush()
		select {
		case <-rep.Hold:
		case <-r.Context().Done():
			return
		}
		body = body[rep.HoldAt:]
	}
	_, _ = w.Write(body)
}

// Requests returns the requests received, in order; the channel holds 16,
// and requests beyond those not yet taken are not recorded.
func (s *WireServer) Requests() <-chan Captured { return s.reqs }

// TakeRequest returns the oldest request not taken yet, without waiting;
// the test fails if there is none.
func (s *WireServer) TakeRequest(t testing.TB) Captured {
	t.Helper()
	select {
	case c := <-s.reqs:
		return c
	default:
		t.Fatal("the server saw no request")
		return Captured{}
	}
}

// Count returns how many requests the server received.
func (s *WireServer) Count() int { return int(s.count.Load()) }

// HoldServer starts a server that answers every request with an event
// stream: it writes head, flushes it, and then keeps the stream open until
// the client goes away. It is closed when the test ends.
func HoldServer(t testing.TB, head string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, head)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	return srv
}

// ReadFixture returns the file testdata/name of the test's package; the
// test fails if it cannot be read.
func ReadFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatalf("read fixture: %v", err)
	}
	return b
}

// SimpleRequest is a request of one user message, "hi", without tools.
func SimpleRequest() providers.Request {
	return providers.Request{Messages: []providers.Message{{Role: providers.RoleUser, Content: "hi"}}}
}

// AsAPIError returns the *providers.APIError in err's chain; the test
// fails if there is none.
func AsAPIError(t testing.TB, err error) *providers.APIError {
	t.Helper()
	var ae *providers.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("error %T (%v), want *providers.APIError", err, err)
	}
	return ae
}

// DeltaLog collects streamed deltas; pass its Add as the onDelta callback.
type DeltaLog struct {
	// Text and Reasoning are the text and reasoning deltas joined.
	Text, Reasoning strings.Builder
	// Tools are the tool-call deltas, in order.
	Tools []providers.Delta
}

// Add records one delta.
func (l *DeltaLog) Add(d providers.Delta) {
	switch d.Kind {
	case providers.DeltaText:
		l.Text.WriteString(d.Text)
	case providers.DeltaReasoning:
		l.Reasoning.WriteString(d.Text)
	case providers.DeltaToolCall:
		l.Tools = append(l.Tools, d)
	}
}

// CheckPreCancelled checks that Stream, given a context cancelled before
// the call, fails with a *providers.APIError that wraps context.Canceled.
func CheckPreCancelled(t *testing.T, tr providers.Transport) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := tr.Stream(ctx, SimpleRequest(), nil)
	AsAPIError(t, err)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v does not wrap context.Canceled", err)
	}
}

// CheckConcurrentStreams runs 8 Streams at once on tr (run it with -race:
// per-call state must not be shared) and checks that each succeeds with
// wantCalls tool calls.
func CheckConcurrentStreams(t *testing.T, tr providers.Transport, wantCalls int) {
	t.Helper()
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			resp, err := tr.Stream(context.Background(), SimpleRequest(), nil)
			if err == nil && len(resp.ToolCalls) != wantCalls {
				err = fmt.Errorf("%d tool calls, want %d: lost a tool call", len(resp.ToolCalls), wantCalls)
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// CheckCancelMidStream streams on tr and cancels the context at the text
// delta trigger, while the server holds the stream open (see HoldServer):
// the error must be a MidStream *providers.APIError wrapping
// context.Canceled, and the partial response must keep wantContent.
func CheckCancelMidStream(t *testing.T, tr providers.Transport, trigger, wantContent string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp, err := tr.Stream(ctx, SimpleRequest(), func(d providers.Delta) {
		if d.Text == trigger {
			cancel()
		}
	})
	ae := AsAPIError(t, err)
	if !ae.MidStream || !errors.Is(err, context.Canceled) {
		t.Errorf("error %+v, want MidStream wrapping context.Canceled", ae)
	}
	if resp == nil || resp.Content != wantContent {
		t.Errorf("partial response %+v", resp)
	}
}

// CheckUnreachable closes srv and streams on tr, a transport pointed at
// it: the error must be a *providers.APIError without status, not
// MidStream, whose message says "cannot reach" and whose Err is the cause.
func CheckUnreachable(t *testing.T, srv *WireServer, tr providers.Transport) {
	t.Helper()
	srv.Close()
	_, err := tr.Stream(context.Background(), SimpleRequest(), nil)
	ae := AsAPIError(t, err)
	if ae.Status != 0 || ae.MidStream || !strings.Contains(ae.Message, "cannot reach") || ae.Err == nil {
		t.Errorf("APIError %+v", ae)
	}
	var op *net.OpError
	if !errors.As(err, &op) {
		t.Errorf("net.OpError not reachable through %v", err)
	}
}
