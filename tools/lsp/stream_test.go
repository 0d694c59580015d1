package lsp

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

// rwc is a read-only ReadWriteCloser over a fixed input.
type rwc struct{ io.Reader }

func (rwc) Write(p []byte) (int, error) { return len(p), nil }
func (rwc) Close() error                { return nil }

// TestCappedStreamRefusesWhatTheLibraryWouldAllocate: a server naming a
// huge Content-Length, an endless header line or endless headers gets an
// error before anything that size is allocated; a normal message reads.
func TestCappedStreamRefusesWhatTheLibraryWouldAllocate(t *testing.T) {
	good := `{"jsonrpc":"2.0","method":"window/logMessage","params":{"type":3,"message":"hi"}}`
	cases := map[string]struct {
		in, err string
	}{
		"huge length":     {"Content-Length: 2000000000\r\n\r\n{", "over the 64 MiB cap"},
		"overflow":        {"Content-Length: 99999999999999999999\r\n\r\n", "invalid Content-Length"},
		"negative":        {"Content-Length: -5\r\n\r\n", "invalid Content-Length"},
		"no length":       {"Content-Type: x\r\n\r\n{}", "without Content-Length"},
		"endless line":    {"X-Pad: " + strings.Repeat("a", 1<<20) + "\r\n\r\n", "header line over"},
		"endless headers": {strings.Repeat("X: y\r\n", 1000) + "\r\n", "header over"},
		"short body":      {"Content-Length: 100\r\n\r\n{}", "reading a 100-byte message"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			s := newCappedStream(rwc{strings.NewReader(c.in)})
			var ms runtimeMem
			ms.start()
			_, _, err := s.Read(context.Background())
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Fatalf("err = %v, want %q", err, c.err)
			}
			if grew := ms.grown(); grew > 16<<20 {
				t.Fatalf("refusing it allocated %d MiB", grew>>20)
			}
		})
	}
	in := fmt.Sprintf("content-length: %d\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n%s", len(good), good)
	msg, n, err := newCappedStream(rwc{strings.NewReader(in)}).Read(context.Background())
	if err != nil || n != int64(len(in)) {
		t.Fatalf("good message: n=%d err=%v", n, err)
	}
	if nt, ok := msg.(*jsonrpc2.Notification); !ok || nt.Method() != "window/logMessage" {
		t.Fatalf("decoded %#v", msg)
	}
}

// TestCappedStreamWritesWhatTheLibraryReads: our framing round-trips
// through the library's own stream.
func TestCappedStreamWritesWhatTheLibraryReads(t *testing.T) {
	var buf strings.Builder
	w := newCappedStream(struct {
		io.Reader
		io.Writer
		io.Closer
	}{strings.NewReader(""), &buf, io.NopCloser(nil)})
	call, err := jsonrpc2.NewCall(jsonrpc2.NewNumberID(7), "initialize", map[string]int{"processId": 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(context.Background(), call); err != nil {
		t.Fatal(err)
	}
	msg, _, err := jsonrpc2.NewStream(rwc{strings.NewReader(buf.String())}).Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := msg.(*jsonrpc2.Call); !ok || c.Method() != "initialize" || string(c.Params()) != `{"processId":1}` {
		t.Fatalf("library read %#v", msg)
	}
}

// runtimeMem measures heap growth across a step.
type runtimeMem struct{ before uint64 }

func (m *runtimeMem) start() { m.before = totalAlloc() }

func (m *runtimeMem) grown() uint64 { return totalAlloc() - m.before }

func totalAlloc() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.TotalAlloc
}
