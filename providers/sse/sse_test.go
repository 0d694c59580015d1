package sse

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
)

// TestReader checks the event splitting rules on one body.
func TestReader(t *testing.T) {
	long := strings.Repeat("x", 200<<10) // longer than the read buffer
	body := ": comment\n" +
		"id: 7\nretry: 1000\nevent: first\ndata: a\ndata:b\n\n" +
		"event: no-data\n\n" +
		"data: " + long + "\r\n\r\n" +
		"event: last\ndata: {\"x\":1}   "
	rd := NewReader(strings.NewReader(body))
	want := []struct{ name, data string }{{"first", "a\nb"}, {"", long}, {"last", `{"x":1}   `}}
	for i, w := range want {
		name, data, err := rd.Next()
		if err != nil || string(name) != w.name || string(data) != w.data {
			t.Fatalf("event %d: %q %.40q %v, want %q %.40q", i, name, data, err, w.name, w.data)
		}
	}
	if _, _, err := rd.Next(); err != io.EOF {
		t.Errorf("after the last event: %v, want io.EOF", err)
	}
}

// TestReaderEdges checks CRLF framing, an empty data field, a field
// without a colon, and a body that ends without any event.
func TestReaderEdges(t *testing.T) {
	body := "event: a\r\ndata\r\n\r\n" + // "data" alone is an empty data line
		"data:  two spaces\r\n\r\n" + // only one space is dropped
		": trailing comment\n"
	rd := NewReader(strings.NewReader(body))
	want := []struct{ name, data string }{{"a", ""}, {"", " two spaces"}}
	for i, w := range want {
		name, data, err := rd.Next()
		if err != nil || string(name) != w.name || string(data) != w.data {
			t.Fatalf("event %d: %q %q %v, want %q %q", i, name, data, err, w.name, w.data)
		}
	}
	if _, _, err := rd.Next(); err != io.EOF {
		t.Errorf("after the last event: %v, want io.EOF", err)
	}
	if _, _, err := NewReader(strings.NewReader("")).Next(); err != io.EOF {
		t.Errorf("empty body: %v, want io.EOF", err)
	}
}

// TestReaderTooLarge checks that a line longer than MaxEventSize is an
// error, not unbounded memory.
func TestReaderTooLarge(t *testing.T) {
	body := "data: " + strings.Repeat("x", MaxEventSize+(128<<10)) + "\n\n"
	if _, _, err := NewReader(strings.NewReader(body)).Next(); !errors.Is(err, ErrEventTooLarge) {
		t.Errorf("oversized event: %v, want ErrEventTooLarge", err)
	}
}

// errReader fails after its data.
type errReader struct {
	data string
	err  error
}

func (r *errReader) Read(p []byte) (int, error) {
	if r.data == "" {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

// TestReaderReadError checks that a read error is passed on, even with an
// event pending.
func TestReaderReadError(t *testing.T) {
	boom := errors.New("connection reset")
	rd := NewReader(&errReader{data: "data: partial\n", err: boom})
	if _, _, err := rd.Next(); err != boom {
		t.Errorf("Next: %v, want %v", err, boom)
	}
}

// TestIsEventStream checks the Content-Type test.
func TestIsEventStream(t *testing.T) {
	for ct, want := range map[string]bool{
		"text/event-stream":                true,
		"text/event-stream; charset=utf-8": true,
		"Text/Event-Stream":                true,
		"application/json":                 false,
		"":                                 false,
		"text/event-stream;;":              false,
	} {
		if got := IsEventStream(ct); got != want {
			t.Errorf("IsEventStream(%q) = %v, want %v", ct, got, want)
		}
	}
}

// TestLooksLikeStream checks the sniffing of a body without an event-stream
// Content-Type, and that leading blanks are dropped.
func TestLooksLikeStream(t *testing.T) {
	for body, want := range map[string]bool{
		"data: {}\n\n":      true,
		"event: x\n":        true,
		": keep-alive\n":    true,
		"":                  true,
		" \r\n\t{\"a\":1}":  false,
		"[{\"error\":{}}]":  false,
		"<html>oops</html>": false,
	} {
		br := bufio.NewReader(strings.NewReader(body))
		if got := LooksLikeStream(br); got != want {
			t.Errorf("LooksLikeStream(%q) = %v, want %v", body, got, want)
		}
		if rest, _ := io.ReadAll(br); string(rest) != strings.TrimLeft(body, " \t\r\n") {
			t.Errorf("LooksLikeStream(%q) left %q", body, rest)
		}
	}
}

// TestReaderCut checks that an event ended by the end of the body, not a
// blank line, is returned and reported as possibly cut, and that a
// complete event is not.
func TestReaderCut(t *testing.T) {
	r := NewReader(strings.NewReader("data: {\"a\":1}\n\ndata: {\"b\":"))
	if _, d, err := r.Next(); err != nil || string(d) != `{"a":1}` || r.Cut() {
		t.Fatalf("first event %q, %v, cut %v", d, err, r.Cut())
	}
	if _, d, err := r.Next(); err != nil || string(d) != `{"b":` || !r.Cut() {
		t.Fatalf("last event %q, %v, cut %v; want the partial data, reported cut", d, err, r.Cut())
	}
	if _, _, err := r.Next(); err != io.EOF || r.Cut() {
		t.Fatalf("after the end: %v, cut %v", err, r.Cut())
	}
}
