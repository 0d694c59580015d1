package anthropic

import (
	"io"
	"strings"
	"testing"
)

// TestSSEReader checks the event splitting rules on one body.
func TestSSEReader(t *testing.T) {
	long := strings.Repeat("x", 200<<10) // longer than the read buffer
	body := ": comment\n" +
		"id: 7\nretry: 1000\nevent: first\ndata: a\ndata:b\n\n" +
		"event: no-data\n\n" +
		"data: " + long + "\r\n\r\n" +
		"event: last\ndata: {\"x\":1}   "
	rd := newSSEReader(strings.NewReader(body))
	want := []struct{ name, data string }{{"first", "a\nb"}, {"", long}, {"last", `{"x":1}   `}}
	for i, w := range want {
		name, data, err := rd.next()
		if err != nil || string(name) != w.name || string(data) != w.data {
			t.Fatalf("event %d: %q %.40q %v, want %q %.40q", i, name, data, err, w.name, w.data)
		}
	}
	if _, _, err := rd.next(); err != io.EOF {
		t.Errorf("after the last event: %v, want io.EOF", err)
	}
}
