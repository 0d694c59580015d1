// Package providertest is a scripted OpenAI-compatible chat-completions
// server for tests: it answers each request with the next scripted reply,
// streamed as real SSE (role chunk, content or tool-call fragments, finish
// chunk, usage chunk, [DONE]), and records every request body. It also
// holds what the wire transports' own tests share (see wire.go): a server
// answering every request with one fixed reply, fixtures, a delta
// collector and checks.
package providertest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Call is one scripted tool call.
type Call struct {
	ID   string
	Name string
	Args string
}

// Reply is one scripted answer.
type Reply struct {
	// Status, Headers and Body make an HTTP error reply when Status != 0.
	Status  int
	Headers map[string]string
	Body    string
	// Chunks are the SSE data payloads of a streamed reply (without the
	// "data: " prefix); "[DONE]" is appended unless Cut is set.
	Chunks []string
	// Cut ends the stream without [DONE] (a dropped connection).
	Cut bool
	// Hold, when non-nil, is waited on after the first chunk (or before an
	// error reply), so a test can act while the request is in flight. A
	// closed request context also releases it.
	Hold chan struct{}
}

// Server is the scripted server.
type Server struct {
	*httptest.Server
	t        testing.TB
	mu       sync.Mutex
	script   []Reply
	requests []map[string]any
	raw      []string
	headers  []http.Header
	started  chan int
}

// New starts a server; it is closed when the test ends.
func New(t testing.TB) *Server {
	s := &Server{t: t, started: make(chan int, 64)}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.Close)
	return s
}

// URL returns the base URL to use as the provider's base_url (".../v1").
func (s *Server) URL() string { return s.Server.URL + "/v1" }

// Push appends replies to the script.
func (s *Server) Push(r ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, r...)
}

// Started receives the 1-based index of each request as it arrives.
func (s *Server) Started() <-chan int { return s.started }

// Requests returns the decoded request bodies received so far.
func (s *Server) Requests() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[string]any(nil), s.requests...)
}

// RawRequests returns the raw request bodies received so far.
func (s *Server) RawRequests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.raw...)
}

// Headers returns the request headers received so far.
func (s *Server) Headers() []http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]http.Header(nil), s.headers...)
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models") {
		_, _ = io.WriteString(w, `{"object":"list","data":[{"id":"test-model","object":"model"}]}`)
		return
	}
	if r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/api/") {
		// Ollama's native API (GET /api/version recognises Ollama): this
		// server is not Ollama, and the probe is not a model request.
		http.NotFound(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req map[string]any
	_ = json.Unmarshal(body, &req)
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.raw = append(s.raw, string(body))
	s.headers = append(s.headers, r.Header.Clone())
	n := len(s.requests)
	var rep Reply
	ok := len(s.script) > 0
	if ok {
		rep, s.script = s.script[0], s.script[1:]
	}
	s.mu.Unlock()
	select {
	case s.started <- n:
	default:
	}
	if !ok {
		s.t.Errorf("providertest: request %d has no scripted reply", n)
		http.Error(w, `{"error":{"message":"no scripted reply","type":"server_error"}}`, http.StatusInternalServerError)
		return
	}
	s.reply(w, r, rep)
}

func (s *Server) reply(w http.ResponseWriter, r *http.Request, rep Reply) {
	if rep.Status != 0 {
		wait(r, rep.Hold)
		for k, v := range rep.Headers {
			w.Header().Set(k, v)
		}
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(rep.Status)
		_, _ = io.WriteString(w, rep.Body)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	for k, v := range rep.Headers {
		w.Header().Set(k, v)
	}
	fl, _ := w.(http.Flusher)
	for i, c := range rep.Chunks {
		if strings.HasPrefix(c, ":") {
			fmt.Fprintf(w, "%s\n\n", c) // an SSE comment line
		} else {
			fmt.Fprintf(w, "data: %s\n\n", c)
		}
		if fl != nil {
			fl.Flush()
		}
		if i == 0 && rep.Hold != nil {
			wait(r, rep.Hold)
		}
	}
	if !rep.Cut {
		_, _ = io.WriteString(w, "data: [DONE]\n\n")
	}
}

func wait(r *http.Request, hold chan struct{}) {
	if hold == nil {
		return
	}
	select {
	case <-hold:
	case <-r.Context().Done():
	}
}
