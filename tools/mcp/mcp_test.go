package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"talaria/tools"
	"talaria/tools/mcp/mcptest"
)

func TestMain(m *testing.M) {
	mcptest.MainIfServer()
	os.Exit(m.Run())
}

// newTestServer is the test server for the HTTP transport.
func newTestServer(bool) http.Handler { return mcptest.Handler(mcptest.Options{}) }

// stdioConfig runs this test binary as a stdio test server; env adds
// mcptest variables.
func stdioConfig(name string, env ...string) ServerConfig {
	e := map[string]string{mcptest.EnvServer: "1"}
	for i := 0; i+1 < len(env); i += 2 {
		e[env[i]] = env[i+1]
	}
	return ServerConfig{Name: name, Command: os.Args[0], Args: []string{"-test.run=^$"}, Env: e}
}

func toolsByName(ts []tools.Tool) map[string]tools.Tool {
	m := map[string]tools.Tool{}
	for _, t := range ts {
		m[t.Name()] = t
	}
	return m
}

func call(t *testing.T, tool tools.Tool, args string) (tools.Result, time.Duration) {
	t.Helper()
	start := time.Now()
	r := tool.Run(context.Background(), &tools.Env{}, json.RawMessage(args))
	return r, time.Since(start)
}

func TestConnectListAndCall(t *testing.T) {
	httpSrv := httptest.NewServer(newTestServer(false))
	defer httpSrv.Close()
	ctx := context.Background()
	local := stdioConfig("local")
	local.ToolTimeout = 300 * time.Millisecond
	m, errs := connect(ctx, []ServerConfig{
		local,
		{Name: "broken", Command: "/nonexistent/mcp-server"},
		{Name: "web", URL: httpSrv.URL},
		{Name: "bad__name", URL: "http://x"},
		{Name: "both", Command: "x", URL: "http://x"},
	})
	defer func() {
		start := time.Now()
		m.Close()
		t.Logf("Close took %s", time.Since(start))
	}()
	if len(errs) != 3 {
		t.Fatalf("errors = %v", errs)
	}
	joined := fmt.Sprint(errs)
	for _, w := range []string{`"broken"`, "/nonexistent/mcp-server", `"bad__name"`, `"both"`} {
		if !strings.Contains(joined, w) {
			t.Errorf("errors lack %s: %s", w, joined)
		}
	}
	var names []string
	for _, tl := range m.Tools() {
		names = append(names, tl.Name())
	}
	want := "local__cancelled local__crash local__echo local__fail local__hang local__image local__link local__noise local__progress local__slow local__write " +
		"web__cancelled web__echo web__fail web__hang web__image web__link web__needs_task web__progress web__slow web__write"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("tools = %s\nwant    %s", got, want)
	}
	ts := toolsByName(m.Tools())
	echo, write := ts["local__echo"], ts["web__write"]
	if tr := echo.Traits(); !tr.ReadOnly || !tr.Claimed || !tr.ParallelSafe || !tr.Idempotent || tr.Destructive {
		t.Errorf("echo (readOnlyHint, idempotentHint) traits: %+v", tr)
	}
	if tr := write.Traits(); tr.ReadOnly || tr.ParallelSafe || !tr.Destructive {
		t.Errorf("write (destructiveHint) traits: %+v", tr)
	}
	if !strings.Contains(echo.Description(), "[MCP server local] Echo the text back.") {
		t.Errorf("description = %q", echo.Description())
	}
	var schema struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(echo.Schema(), &schema); err != nil || schema.Type != "object" || schema.Properties["text"] == nil {
		t.Errorf("schema = %s (%v)", echo.Schema(), err)
	}
	if err := json.Unmarshal(ts["local__fail"].Schema(), &schema); err != nil || schema.Type != "object" {
		t.Errorf("empty schema = %s", ts["local__fail"].Schema())
	}
	// Calls over both transports: text parts joined; tool errors flagged.
	for _, name := range []string{"local__echo", "web__echo"} {
		r, _ := call(t, ts[name], `{"text":"hi"}`)
		if r.IsError || r.Output != "echo: hi\nsecond part" {
			t.Errorf("%s = %+v", name, r)
		}
	}
	r, _ := call(t, ts["web__write"], `{"text":"x"}`)
	if r.IsError || r.Output != "wrote x" {
		t.Errorf("write = %+v", r)
	}
	r, _ = call(t, ts["local__fail"], `{}`)
	if !r.IsError || !strings.Contains(r.Output, "bad input") {
		t.Errorf("fail = %+v", r)
	}
	r, _ = call(t, echo, `{"text":5}`)
	if !r.IsError {
		t.Errorf("bad arguments accepted: %+v", r)
	}
	// A server that does not answer hits the call timeout.
	r, took := call(t, ts["local__hang"], `{}`)
	if !r.IsError || !strings.Contains(r.Output, "did not answer within 300ms") {
		t.Errorf("hang = %+v after %s", r, took)
	}
	r, _ = call(t, ts["local__echo"], `{"text":"still alive"}`)
	if r.IsError {
		t.Errorf("server unusable after a timeout: %+v", r)
	}
	st := m.Status()
	if len(st) != 3 || !st[0].Connected || st[1].Connected || st[1].Err == nil || st[0].Tools != 11 {
		t.Errorf("status = %+v", st)
	}
}

func TestServerDiesAndReconnects(t *testing.T) {
	ctx := context.Background()
	m, errs := connect(ctx, []ServerConfig{stdioConfig("local")})
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	defer m.Close()
	ts := toolsByName(m.Tools())
	// The server exits during the call: an error result, quickly.
	r, took := call(t, ts["local__crash"], `{}`)
	if !r.IsError || took > 5*time.Second {
		t.Fatalf("crash = %+v after %s", r, took)
	}
	t.Logf("crash: %s (%s)", r.Output, took)
	// Later calls fail at once, saying why.
	deadline := time.Now().Add(5 * time.Second)
	for m.Status()[0].Connected && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	r, took = call(t, ts["local__echo"], `{"text":"x"}`)
	if !r.IsError || took > time.Second || !strings.Contains(r.Output, `"local"`) || !strings.Contains(r.Output, "retried between turns") {
		t.Errorf("call on a dead server = %+v after %s", r, took)
	}
	if !strings.Contains(r.Output, "crashing now") {
		t.Errorf("the server's stderr is not quoted: %s", r.Output)
	}
	t.Logf("dead: %s (%s)", r.Output, took)
	// Reconnect brings it back; the old Tool values work again.
	if errs := m.Reconnect(ctx); len(errs) != 0 {
		t.Fatal(errs)
	}
	r, _ = call(t, ts["local__echo"], `{"text":"back"}`)
	if r.IsError || !strings.HasPrefix(r.Output, "echo: back") {
		t.Errorf("after reconnect = %+v", r)
	}
	// After Close, calls fail fast and Reconnect does not revive it.
	m.Close()
	r, took = call(t, ts["local__echo"], `{"text":"x"}`)
	if !r.IsError || took > time.Second {
		t.Errorf("after Close = %+v", r)
	}
	if errs := m.Reconnect(ctx); len(errs) != 0 || m.Status()[0].Connected {
		t.Errorf("Reconnect after Close: %v %+v", errs, m.Status())
	}
}

func TestReconnectBackoff(t *testing.T) {
	ctx := context.Background()
	m, errs := connect(ctx, []ServerConfig{{Name: "broken", Command: "/nonexistent/mcp-server"}})
	defer m.Close()
	if len(errs) != 1 {
		t.Fatalf("errs = %v", errs)
	}
	// Tried again only after the backoff.
	if errs := m.Reconnect(ctx); len(errs) != 0 {
		t.Errorf("retried at once: %v", errs)
	}
	if len(m.Tools()) != 0 {
		t.Error("tools from a server that never connected")
	}
}

func TestToolNameSanitized(t *testing.T) {
	used := map[string]bool{}
	if got := toolName("my server", "do.thing/now", used); got != "my_server__do_thing_now" {
		t.Errorf("got %q", got)
	}
	if got := toolName("my server", "do thing/now", used); got != "my_server__do_thing_now_2" {
		t.Errorf("duplicate got %q", got)
	}
	long := toolName("s", strings.Repeat("x", 100), used)
	if len(long) != 64 {
		t.Errorf("long name has %d chars", len(long))
	}
}

func TestHTTPServerGoneAndBack(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	handler := newTestServer(false)
	srv := httptest.NewUnstartedServer(handler)
	srv.Listener = ln
	srv.Start()
	ctx := context.Background()
	m, errs := connect(ctx, []ServerConfig{{Name: "web", URL: "http://" + addr}})
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	defer m.Close()
	echo := toolsByName(m.Tools())["web__echo"]
	if r, _ := call(t, echo, `{"text":"a"}`); r.IsError {
		t.Fatalf("first call: %+v", r)
	}
	srv.CloseClientConnections()
	srv.Close()
	r, took := call(t, echo, `{"text":"b"}`)
	t.Logf("server gone: %s (%s)", r.Output, took)
	if !r.IsError || took > 10*time.Second || !strings.Contains(r.Output, `"web"`) {
		t.Fatalf("call to a stopped server = %+v after %s", r, took)
	}
	// It comes back on the same address; Reconnect picks it up.
	ln2, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("cannot listen on %s again: %v", addr, err)
	}
	srv2 := httptest.NewUnstartedServer(handler)
	srv2.Listener = ln2
	srv2.Start()
	defer func() {
		m.Close() // first: the client holds an SSE stream open
		srv2.Close()
	}()
	if m.Status()[0].Connected {
		// The SDK may still hold the session: a second call finds it dead.
		call(t, echo, `{"text":"c"}`)
	}
	if errs := m.Reconnect(ctx); len(errs) != 0 {
		t.Fatal(errs)
	}
	if r, _ := call(t, echo, `{"text":"d"}`); r.IsError || !strings.HasPrefix(r.Output, "echo: d") {
		t.Errorf("after reconnect: %+v", r)
	}
}
