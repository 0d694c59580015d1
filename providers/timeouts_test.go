package providers_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"talaria/providers"
	"talaria/providers/anthropic"
	"talaria/providers/bedrock"
	"talaria/providers/gemini"
	"talaria/providers/openaichat"
	"talaria/providers/providertest"
	"talaria/providers/responses"
)

// hostile is a server behaviour that never completes a response.
type hostile func(w http.ResponseWriter, r *http.Request)

// noHeaders reads the request and then sends nothing at all.
func noHeaders(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	<-r.Context().Done()
}

// oneChunk sends the headers and one keep-alive line, then goes silent.
func oneChunk(ct string) hostile {
	return func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", ct)
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, ": hello\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}
}

// pingsOnly sends comments, ping events and empty data lines forever,
// until the client goes away.
func pingsOnly(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	pings := []string{": ping\n\n", "event: ping\ndata: {\"type\": \"ping\"}\n\n", "data: \n\n", ":\n\n"}
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for i := 0; ; i++ {
		if _, err := io.WriteString(w, pings[i%len(pings)]); err != nil {
			return
		}
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
		}
	}
}

type wire struct {
	name string
	new  providers.Factory
	ct   string // the content type of its stream
	path string // appended to the server URL for the base URL
}

func wires() []wire {
	return []wire{
		{"chat_completions", openaichat.New, "text/event-stream", "/v1"},
		{"anthropic_messages", anthropic.New, "text/event-stream", ""},
		{"codex_responses", responses.New, "text/event-stream", "/v1"},
		{"gemini", gemini.New, "text/event-stream", ""},
		{"bedrock_converse", bedrock.NewStreaming, "application/vnd.amazon.eventstream", ""},
	}
}

// stream runs one call of w against h with tight timeouts and returns the
// error.
func stream(t *testing.T, w wire, h hostile, to providers.Timeouts) error {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(h))
	t.Cleanup(srv.Close)
	tr, err := w.new(providers.Endpoint{Provider: w.name, Model: "m", BaseURL: srv.URL + w.path, APIKey: "k",
		HTTPClient: &http.Client{Transport: providers.NewTimeoutTransport(nil, to)}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = tr.Stream(context.Background(), providertest.SimpleRequest(), nil)
	if err == nil {
		t.Fatal("a hostile server produced a response")
	}
	return err
}

func wantTimeout(t *testing.T, err error, phase string) {
	t.Helper()
	var te *providers.TimeoutError
	if !errors.As(err, &te) || te.Phase != phase {
		t.Fatalf("error %v (%T): want a %s timeout", err, err, phase)
	}
	c := providers.ClassifyWith(err, providers.ClassifyInput{})
	if c.Reason != providers.ReasonTimeout || !c.Retryable {
		t.Fatalf("classified %+v, want a retryable timeout", c)
	}
	if !strings.Contains(err.Error(), "agent."+phase+"_timeout") {
		t.Fatalf("message %q does not name the key", err)
	}
}

// Every wire gives up on each hostile server with a timeout that names its
// key and classifies as a retryable timeout.
func TestHostileServersTimeOutOnEveryWire(t *testing.T) {
	to := providers.Timeouts{Request: 100 * time.Millisecond, StreamRead: 150 * time.Millisecond, StreamStale: 200 * time.Millisecond}
	for _, w := range wires() {
		t.Run(w.name+"/no_headers", func(t *testing.T) {
			wantTimeout(t, stream(t, w, noHeaders, to), providers.PhaseRequest)
		})
		t.Run(w.name+"/one_chunk_then_silence", func(t *testing.T) {
			slow := to
			slow.StreamStale = time.Hour
			wantTimeout(t, stream(t, w, oneChunk(w.ct), slow), providers.PhaseStreamRead)
		})
		if w.ct == "text/event-stream" {
			t.Run(w.name+"/pings_only", func(t *testing.T) {
				wantTimeout(t, stream(t, w, pingsOnly, to), providers.PhaseStreamStale)
			})
		}
	}
}

// A cancelled context still ends a wait at once, as a cancellation, not a
// timeout.
func TestTimeoutTransportKeepsCancellation(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(noHeaders))
	defer srv.Close()
	tr, _ := openaichat.New(providers.Endpoint{Provider: "openai", Model: "m", BaseURL: srv.URL + "/v1",
		HTTPClient: &http.Client{Transport: providers.NewTimeoutTransport(nil, providers.DefaultTimeouts())}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := tr.Stream(ctx, providertest.SimpleRequest(), nil); done <- err }()
	cancel()
	err := <-done
	var te *providers.TimeoutError
	if errors.As(err, &te) || !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want a cancellation", err)
	}
}

// Content resets the stale timer and the body passes through byte for
// byte: a stream slower than the stale bound in total, but with content
// in every gap, completes.
func TestContentKeepsAStreamAlive(t *testing.T) {
	const n = 20
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i := 0; i < n; i++ {
			fmt.Fprintf(w, ": ping\n\ndata: {\"n\":%d}\n\n", i)
			w.(http.Flusher).Flush()
			<-release
		}
	}))
	defer srv.Close()
	c := &http.Client{Transport: providers.NewTimeoutTransport(nil, providers.Timeouts{StreamRead: time.Hour, StreamStale: time.Hour})}
	resp, err := c.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	go func() {
		for i := 0; i < n; i++ {
			release <- struct{}{}
		}
	}()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(got), "data: {") != n || !strings.HasPrefix(string(got), ": ping\n\ndata: {\"n\":0}") {
		t.Fatalf("body changed: %q", got)
	}
}
