package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"talaria/tools"
	"talaria/tools/mcp/mcptest"
)

// logLines collects a Manager's log.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, s)
}

func (l *logLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// both starts a stdio and an HTTP test server and waits for them.
func both(t *testing.T, stdio ServerConfig, log *logLines) *Manager {
	t.Helper()
	srv := httptest.NewServer(mcptest.Handler(mcptest.Options{Instructions: "Use web tools kindly."}))
	m, errs := Start([]ServerConfig{stdio, {Name: "web", URL: srv.URL}}, Options{Log: log.add})
	t.Cleanup(func() {
		m.Close()
		srv.Close()
	})
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	if errs := m.Wait(context.Background()); len(errs) != 0 {
		t.Fatal(errs)
	}
	return m
}

func TestStrayStdoutLinesAreSkipped(t *testing.T) {
	log := &logLines{}
	m := both(t, stdioConfig("local", mcptest.EnvBanner, "Welcome to the test server v1"), log)
	ts := toolsByName(m.Tools())
	// A banner before the handshake did not stop it; a log line between
	// messages does not end the session.
	if r, _ := call(t, ts["local__noise"], `{}`); r.IsError || r.Output != "after the noise" {
		t.Fatalf("noise = %+v", r)
	}
	if r, _ := call(t, ts["local__echo"], `{"text":"still here"}`); r.IsError || !strings.HasPrefix(r.Output, "echo: still here") {
		t.Fatalf("after a stray line = %+v", r)
	}
	got := log.String()
	for _, w := range []string{`"local": skipped a line on stdout that is not JSON-RPC: Welcome to the test server v1`, "Kaboom: a log line on stdout"} {
		if !strings.Contains(got, w) {
			t.Errorf("log lacks %q:\n%s", w, got)
		}
	}
	if !m.Status()[0].Connected {
		t.Error("server disconnected")
	}
}

func TestStrayLineDecoding(t *testing.T) {
	var stray []string
	c := &stdioConn{stray: func(s string) { stray = append(stray, s) }}
	for _, line := range []string{
		`{"jsonrpc":"2.0","method":"notifications/x"}`,
		`[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","method":"b"}]`,
		`{"not":"jsonrpc"}`,
		`[1,2]`,
		`INFO starting`,
		"{" + strings.Repeat("x", 500),
	} {
		c.decode([]byte(line))
	}
	if len(stray) != 4 || stray[2] != "INFO starting" || len(stray[3]) > strayQuote+len("…") {
		t.Errorf("stray = %q", stray)
	}
	if got := len(c.decode([]byte(`[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","method":"b"}]`))); got != 2 {
		t.Errorf("batch gave %d messages", got)
	}
}

func TestOverlongLineEndsTheConnection(t *testing.T) {
	long := bytes.Repeat([]byte("x"), maxLine+10)
	_, err := readLine(bufio.NewReader(bytes.NewReader(append(long, '\n'))))
	if err == nil || !strings.Contains(err.Error(), "MiB") {
		t.Errorf("err = %v", err)
	}
}

func TestSlowServerStartsInTheBackground(t *testing.T) {
	slow := stdioConfig("slow", mcptest.EnvDelay, "2s")
	slow.StartupTimeout = 10 * time.Second
	late := stdioConfig("late", mcptest.EnvDelay, "20s")
	late.StartupTimeout = 500 * time.Millisecond
	m, errs := Start([]ServerConfig{slow, late}, Options{})
	defer m.Close()
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	// Start returned while both still start.
	if got := strings.Join(m.Starting(), ","); got != "slow,late" {
		t.Fatalf("starting = %q", got)
	}
	if st := m.Status(); !st[0].Starting || st[0].Connected {
		t.Errorf("status = %+v", st)
	}
	errs = m.Wait(context.Background())
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), `"late"`) || !strings.Contains(errs[0].Error(), "startup_timeout of 500ms") {
		t.Fatalf("errors = %v", errs)
	}
	if len(m.Starting()) != 0 {
		t.Errorf("still starting: %v", m.Starting())
	}
	if n := m.Notices(); !slices.Contains(n, errs[0].Error()) {
		t.Errorf("notices = %q", n)
	}
	if r, _ := call(t, toolsByName(m.Tools())["slow__echo"], `{"text":"ok"}`); r.IsError {
		t.Errorf("slow server unusable: %+v", r)
	}
}

func TestToolOfAStartingServer(t *testing.T) {
	slow := stdioConfig("slow", mcptest.EnvDelay, "30s")
	m, _ := Start([]ServerConfig{slow}, Options{})
	defer m.Close()
	s := m.server("slow")
	tl := newTool(s, "slow__echo", &sdk.Tool{Name: "echo"})
	r, _ := call(t, tl, `{}`)
	if !r.IsError || !strings.Contains(r.Output, "still starting") {
		t.Errorf("call while starting = %+v", r)
	}
}

func TestResourceTools(t *testing.T) {
	m := both(t, stdioConfig("local"), &logLines{})
	rs := toolsByName(m.ResourceTools())
	list, read := rs["list_mcp_resources"], rs["read_mcp_resource"]
	for _, tl := range []tools.Tool{list, read} {
		if tr := tl.Traits(); !tr.ReadOnly || tr.Claimed || !tr.ParallelSafe {
			t.Errorf("%s is not a read-only parallel-safe tool", tl.Name())
		}
	}
	r, _ := call(t, list, `{}`)
	for _, w := range []string{"## local\n- test://data.bin", "## web\n", "test://readme (readme, text/plain): The readme."} {
		if !strings.Contains(r.Output, w) {
			t.Errorf("list lacks %q:\n%s", w, r.Output)
		}
	}
	r, _ = call(t, list, `{"server":"web"}`)
	if strings.Contains(r.Output, "## local") || !strings.Contains(r.Output, "test://dot.png") {
		t.Errorf("list web = %s", r.Output)
	}
	if r, _ = call(t, list, `{"server":"nope"}`); !r.IsError || !strings.Contains(r.Output, "local, web") {
		t.Errorf("unknown server = %+v", r)
	}
	// A resource link in a tool result, read with the new tool.
	link, _ := call(t, toolsByName(m.Tools())["web__link"], `{}`)
	if !strings.Contains(link.Output, "test://readme") || !strings.Contains(link.Output, "read_mcp_resource") {
		t.Fatalf("link = %+v", link)
	}
	for _, srv := range []string{"local", "web"} {
		r, _ = call(t, read, `{"server":"`+srv+`","uri":"test://readme"}`)
		if r.IsError || r.Output != mcptest.Readme {
			t.Errorf("%s readme = %+v", srv, r)
		}
	}
	r, _ = call(t, read, `{"server":"local","uri":"test://dot.png"}`)
	if r.IsError || len(r.Images) != 1 || r.Images[0].MIME != "image/png" || !bytes.Equal(r.Images[0].Data, mcptest.PNG) {
		t.Errorf("image resource = %+v", r)
	}
	r, _ = call(t, read, `{"server":"local","uri":"test://data.bin"}`)
	if r.IsError || r.Output != "[resource test://data.bin, application/octet-stream, 1234 bytes of binary data]" || len(r.Images) != 0 {
		t.Errorf("binary resource = %+v", r)
	}
	if r, _ = call(t, read, `{"server":"local","uri":"test://missing"}`); !r.IsError {
		t.Errorf("missing resource = %+v", r)
	}
	if r, _ = call(t, read, `{"server":"local"}`); !r.IsError || !strings.Contains(r.Output, "uri") {
		t.Errorf("no uri = %+v", r)
	}
	if r, _ = call(t, read, `{"server":5}`); !r.IsError {
		t.Errorf("bad args = %+v", r)
	}
}

func TestImageResult(t *testing.T) {
	m := both(t, stdioConfig("local"), &logLines{})
	for _, name := range []string{"local__image", "web__image"} {
		r, _ := call(t, toolsByName(m.Tools())[name], `{}`)
		if r.IsError || len(r.Images) != 1 || !bytes.Equal(r.Images[0].Data, mcptest.PNG) || r.Output != "a dot:\n[image image/png, 70 bytes]" {
			t.Errorf("%s = %+v", name, r)
		}
	}
	big := make([]byte, 5<<20+1)
	if text, im := imagePart("image/png", big); im != nil || !strings.Contains(text, "over the 5 MiB cap") {
		t.Errorf("big image = %q %v", text, im != nil)
	}
	if _, im := imagePart("image/tiff", mcptest.PNG); im != nil {
		t.Error("tiff passed on as an image")
	}
	// At most maxImages images and maxImageTotal bytes per result.
	var parts []string
	set := &imageSet{parts: &parts}
	for range maxImages + 1 {
		set.add("image/png", mcptest.PNG)
	}
	four := make([]byte, 4<<20)
	set2 := &imageSet{parts: &parts}
	for range 3 {
		set2.add("image/jpeg", four)
	}
	if len(set.images) != maxImages || len(set2.images) != 2 || len(parts) != maxImages+4 || !strings.Contains(parts[len(parts)-1], "not shown") {
		t.Errorf("images kept: %d and %d; parts %q", len(set.images), len(set2.images), parts[len(parts)-1])
	}
}

func TestProgressReachesTheCallback(t *testing.T) {
	m := both(t, stdioConfig("local"), &logLines{})
	for _, name := range []string{"local__progress", "web__progress"} {
		var mu sync.Mutex
		var got []string
		ctx := withProgress(context.Background(), func(s string) {
			mu.Lock()
			got = append(got, s)
			mu.Unlock()
		})
		r := toolsByName(m.Tools())[name].Run(ctx, &tools.Env{}, json.RawMessage(`{"steps":3}`))
		if r.IsError || r.Output != "done after 3 steps" {
			t.Fatalf("%s = %+v", name, r)
		}
		mu.Lock()
		// Notifications travel apart from the answer: those that came are
		// in order and well formed, and at least the first arrived before
		// the answer over stdio (one stream, in order).
		for i, s := range got {
			if want := "step " + string(rune('1'+i)) + " (" + string(rune('1'+i)) + "/3)"; s != want {
				t.Errorf("%s progress[%d] = %q, want %q", name, i, s, want)
			}
		}
		if name == "local__progress" && len(got) != 3 {
			t.Errorf("%s: %d progress lines: %q", name, len(got), got)
		}
		mu.Unlock()
	}
	// Without a callback no token is sent.
	r, _ := call(t, toolsByName(m.Tools())["local__progress"], `{"steps":2}`)
	if r.Output != "no progress token" {
		t.Errorf("without callback = %+v", r)
	}
}

func TestInstructions(t *testing.T) {
	m := both(t, stdioConfig("local", mcptest.EnvInstructions, "  Call echo first.\n"), &logLines{})
	got := m.Instructions()
	if len(got) != 2 || got["local"] != "Call echo first." || got["web"] != "Use web tools kindly." {
		t.Errorf("instructions = %q", got)
	}
}

func TestTaskRequiredToolIsNotOffered(t *testing.T) {
	log := &logLines{}
	m := both(t, stdioConfig("local"), log)
	ts := toolsByName(m.Tools())
	if _, ok := ts["local__needs_task"]; ok {
		t.Error("a tool that requires tasks is offered")
	}
	if _, ok := ts["local__echo"]; !ok {
		t.Error("the other tools are gone")
	}
	n := strings.Join(m.Notices(), "\n")
	if !strings.Contains(n, `"local": tool "needs_task" is not offered: it requires task-augmented calls`) {
		t.Errorf("notices = %q", n)
	}
	if len(m.Notices()) != 0 {
		t.Error("notices given twice")
	}
	// A server that refuses at call time (-32601) loses the tool too.
	s := m.server("local")
	tl := newTool(s, "local__needs_task", &sdk.Tool{Name: mcptest.TaskTool})
	s.mu.Lock()
	s.tools = append(s.tools, &sdk.Tool{Name: mcptest.TaskTool})
	s.mu.Unlock()
	r, _ := call(t, tl, `{}`)
	if !r.IsError || !strings.Contains(r.Output, "only as a task") {
		t.Errorf("task call = %+v", r)
	}
	if _, ok := toolsByName(m.Tools())["local__needs_task"]; ok {
		t.Error("still offered after the refusal")
	}
}

func TestCancelOneCallNotifiesOnlyIt(t *testing.T) {
	for _, srv := range []string{"local", "web"} {
		t.Run(srv, func(t *testing.T) {
			m := both(t, stdioConfig("local"), &logLines{})
			ts := toolsByName(m.Tools())
			slow := ts[srv+"__slow"]
			started := make(chan string, 2)
			onProgress := func(s string) { started <- s }
			ctxA, cancelA := context.WithCancel(withProgress(context.Background(), onProgress))
			ctxB, cancelB := context.WithCancel(withProgress(context.Background(), onProgress))
			defer cancelB()
			done := make(chan tools.Result, 2)
			go func() { done <- slow.Run(ctxA, &tools.Env{}, json.RawMessage(`{"tag":"A"}`)) }()
			go func() { done <- slow.Run(ctxB, &tools.Env{}, json.RawMessage(`{"tag":"B"}`)) }()
			// Both run on the server before A is cancelled.
			got := map[string]bool{<-started: true, <-started: true}
			if !got["started A (0)"] || !got["started B (0)"] {
				t.Fatalf("started = %v", got)
			}
			cancelA()
			if r := <-done; !r.IsError || !strings.Contains(r.Output, "cancelled") {
				t.Fatalf("A = %+v", r)
			}
			// The server hears of it (notifications/cancelled for A's id):
			// its handler for A ends; B's goes on.
			// Polled: nothing tells the client when the server got it.
			cancelledOnServer := func(until string) string {
				var out string
				for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
					r, _ := call(t, ts[srv+"__cancelled"], `{}`)
					if out = r.Output; out != "(no output)" && out != until {
						break
					}
				}
				return out
			}
			if got := cancelledOnServer(""); got != "A" {
				t.Fatalf("cancelled on the server = %q, want A", got)
			}
			cancelB()
			<-done
			if got := cancelledOnServer("A"); got != "A,B" {
				t.Fatalf("cancelled on the server = %q, want A,B", got)
			}
		})
	}
}
