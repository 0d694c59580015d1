package providers

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// sseBody is 8 MiB of chat-completion-like SSE events.
func sseBody() []byte {
	ev := `data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"word "}}]}` + "\n\n"
	return []byte(strings.Repeat(ev, (8<<20)/len(ev)))
}

// BenchmarkWatchedBody reads an 8 MiB event stream through the timeout
// watcher (timers reset per read, SSE lines judged); compare with
// BenchmarkRawBody for its cost.
func BenchmarkWatchedBody(b *testing.B) {
	data := sseBody()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		w := &watchdog{cancel: func() {}}
		to := DefaultTimeouts()
		w.arm(&w.read, PhaseStreamRead, to.StreamRead)
		w.arm(&w.stale, PhaseStreamStale, to.StreamStale)
		body := &watchedBody{rc: io.NopCloser(bytes.NewReader(data)), w: w, t: to, sse: &sseScan{}}
		if _, err := io.CopyBuffer(io.Discard, body, make([]byte, 4096)); err != nil {
			b.Fatal(err)
		}
		body.Close()
	}
}

// BenchmarkRawBody is the same read without the watcher.
func BenchmarkRawBody(b *testing.B) {
	data := sseBody()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		raw := struct{ io.Reader }{bytes.NewReader(data)} // no WriteTo: 4 KiB reads, as through the watcher
		if _, err := io.CopyBuffer(io.Discard, raw, make([]byte, 4096)); err != nil {
			b.Fatal(err)
		}
	}
}

// The scanner tells pings from content across chunk boundaries.
func TestSSEScanJudgesLines(t *testing.T) {
	for _, c := range []struct {
		in   string
		want bool
	}{
		{": ping\n\n", false},
		{"event: ping\ndata: {\"type\":\"ping\"}\n\n", false},
		{"data: {\"type\": \"ping\"}\n\n", false},
		{"data:\n\ndata: \n\n", false},
		{"id: 4\nretry: 100\n\n", false},
		{"data: {\"choices\":[]}\n\n", true},
		{"event: content_block_delta\ndata: {\"x\":1}\n\n", true},
		{"data: " + strings.Repeat("x", 200), true}, // a long line is content before it ends
	} {
		for split := 0; split <= len(c.in); split += max(1, len(c.in)/7) {
			s := &sseScan{}
			got := s.feed([]byte(c.in[:split]))
			got = s.feed([]byte(c.in[split:])) || got
			if got != c.want {
				t.Errorf("%q split at %d: content %v, want %v", c.in, split, got, c.want)
			}
		}
	}
}
