package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runWith runs tool with args marshalled to JSON in env.
func runWith(t *testing.T, ctx context.Context, tool Tool, env *Env, args map[string]any) Result {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return tool.Run(ctx, env, raw)
}

// procEnv returns an Env with a process manager closed at the end of the
// test.
func procEnv(t *testing.T) *Env {
	t.Helper()
	m := NewProcessManager()
	t.Cleanup(func() { m.Close() })
	return &Env{Cwd: t.TempDir(), Processes: m}
}

var procIDRe = regexp.MustCompile(`proc_\d+`)

// startBG starts command in the background through the terminal tool and
// returns its id.
func startBG(t *testing.T, env *Env, command string) string {
	t.Helper()
	out := mustOK(t, runWith(t, context.Background(), TerminalTool{}, env, map[string]any{"command": command, "background": true}))
	id := procIDRe.FindString(out)
	if id == "" || !strings.Contains(out, "process{action:\"poll\"") {
		t.Fatalf("no process id in %q", out)
	}
	return id
}

// pollUntil polls id until its accumulated output contains want.
func pollUntil(t *testing.T, env *Env, id, want string) string {
	t.Helper()
	var seen strings.Builder
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		out := mustOK(t, runWith(t, context.Background(), ProcessTool{}, env, map[string]any{"action": "poll", "id": id}))
		seen.WriteString(out)
		if strings.Contains(seen.String(), want) {
			return seen.String()
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s never printed %q; saw:\n%s", id, want, seen.String())
	return ""
}

func procCall(t *testing.T, env *Env, args map[string]any) Result {
	t.Helper()
	return runWith(t, context.Background(), ProcessTool{}, env, args)
}

func TestBackgroundProcessLifecycle(t *testing.T) {
	env := procEnv(t)
	id := startBG(t, env, "echo start; while [ ! -f go ]; do sleep 0.02; done; echo done; exit 3")
	if id != "proc_1" {
		t.Errorf("first id = %s", id)
	}
	out := pollUntil(t, env, id, "start")
	if !strings.Contains(out, "running") {
		t.Errorf("poll state: %q", out)
	}
	// Nothing new since the last poll.
	out = mustOK(t, procCall(t, env, map[string]any{"action": "poll", "id": id}))
	if !strings.Contains(out, "(no new output)") {
		t.Errorf("second poll: %q", out)
	}
	// wait times out while it runs.
	out = mustOK(t, procCall(t, env, map[string]any{"action": "wait", "id": id, "timeout": 1}))
	if !strings.Contains(out, "still running after waiting 1 s") {
		t.Errorf("wait timeout: %q", out)
	}
	if err := os.WriteFile(filepath.Join(env.Cwd, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out = mustOK(t, procCall(t, env, map[string]any{"action": "wait", "id": id}))
	if !strings.Contains(out, "exited with code 3") || !strings.Contains(out, "done") || strings.Contains(out, "start") {
		t.Errorf("wait: %q", out)
	}
	out = mustOK(t, procCall(t, env, map[string]any{"action": "log", "id": id}))
	if !strings.Contains(out, "lines 1-2 of 2:\n1|start\n2|done") {
		t.Errorf("log: %q", out)
	}
	out = mustOK(t, procCall(t, env, map[string]any{"action": "log", "id": id, "offset": 2, "limit": 1}))
	if !strings.Contains(out, "2|done") || strings.Contains(out, "1|start") {
		t.Errorf("log offset: %q", out)
	}
	mustErr(t, procCall(t, env, map[string]any{"action": "log", "id": id, "offset": 9}), "past the end")
	out = mustOK(t, procCall(t, env, map[string]any{"action": "list"}))
	if !regexp.MustCompile(`proc_1\s+exited\s+exit 3`).MatchString(out) || !strings.Contains(out, "echo start") {
		t.Errorf("list: %q", out)
	}
	out = mustOK(t, procCall(t, env, map[string]any{"action": "kill", "id": id}))
	if !strings.Contains(out, "already finished") {
		t.Errorf("kill after exit: %q", out)
	}
	// Errors the model can act on.
	mustErr(t, procCall(t, env, map[string]any{"action": "poll", "id": "proc_9"}), "known ids: proc_1")
	mustErr(t, procCall(t, env, map[string]any{"action": "poll"}), "needs the id")
	mustErr(t, procCall(t, env, map[string]any{"action": "frob", "id": id}), "unknown action")
	mustErr(t, runWith(t, context.Background(), ProcessTool{}, &Env{}, map[string]any{"action": "list"}), "not available")
}

func TestBackgroundKillGroup(t *testing.T) {
	env := procEnv(t)
	// The shell ignores SIGTERM (and so do its children): SIGKILL must
	// follow, for the whole group, grandchildren included.
	id := startBG(t, env, "trap '' TERM; sleep 300 & echo ready; sleep 300")
	pollUntil(t, env, id, "ready")
	pid := env.Processes.List()[0].PID
	if !groupAlive(pid) {
		t.Fatal("group not alive before kill")
	}
	start := time.Now()
	out := mustOK(t, procCall(t, env, map[string]any{"action": "kill", "id": id}))
	if !strings.Contains(out, "proc_1: killed; exited with code 137") || !strings.Contains(out, "(by signal: killed)") {
		t.Errorf("kill: %q", out)
	}
	if el := time.Since(start); el < 900*time.Millisecond || el > 5*time.Second {
		t.Errorf("kill took %s; want about the 1 s grace", el)
	}
	if groupAlive(pid) {
		t.Error("process group still alive after kill")
	}
	info := env.Processes.List()[0]
	if info.Running || !info.Killed {
		t.Errorf("info after kill: %+v", info)
	}
	out = mustOK(t, procCall(t, env, map[string]any{"action": "list"}))
	if !strings.Contains(out, "killed") {
		t.Errorf("list: %q", out)
	}
}

func TestBackgroundWaitHonoursContext(t *testing.T) {
	env := procEnv(t)
	id := startBG(t, env, "sleep 300")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan Result, 1)
	go func() {
		done <- runWith(t, ctx, ProcessTool{}, env, map[string]any{"action": "wait", "id": id, "timeout": 300})
	}()
	cancel()
	select {
	case r := <-done:
		mustErr(t, r, "wait cancelled", "running")
	case <-time.After(5 * time.Second):
		t.Fatal("wait ignored the cancelled context")
	}
}

func TestProcessManagerClose(t *testing.T) {
	env := procEnv(t)
	m := env.Processes
	a := startBG(t, env, "echo a; sleep 300")
	b := startBG(t, env, "trap '' TERM; echo b; sleep 300")
	pollUntil(t, env, a, "a")
	pollUntil(t, env, b, "b")
	pids := []int{m.List()[0].PID, m.List()[1].PID}
	if m.Running() != 2 {
		t.Fatalf("running = %d", m.Running())
	}
	start := time.Now()
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("Close took %s", el)
	}
	for _, pid := range pids {
		if groupAlive(pid) {
			t.Errorf("group %d survived Close", pid)
		}
	}
	if m.Running() != 0 {
		t.Errorf("running after Close = %d", m.Running())
	}
	mustErr(t, runWith(t, context.Background(), TerminalTool{}, env, map[string]any{"command": "true", "background": true}), "closing")
	if err := m.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestOutputRing(t *testing.T) {
	r := newOutputRing(10)
	r.Write([]byte("hello "))
	data, start, end := r.since(0)
	if data != "hello " || start != 0 || end != 6 {
		t.Errorf("since(0) = %q %d %d", data, start, end)
	}
	r.Write([]byte("world, again"))
	data, start, end = r.since(6)
	if data != "rld, again" || start != 8 || end != 18 {
		t.Errorf("since(6) = %q %d %d (older bytes dropped)", data, start, end)
	}
	for i := 0; i < 100; i++ {
		r.Write([]byte("0123456"))
	}
	data, _, end = r.since(end)
	if len(data) != 10 || end != 718 {
		t.Errorf("after many writes: %q %d", data, end)
	}
	// A rune split across writes is held back until complete.
	r2 := newOutputRing(100)
	r2.Write([]byte("é")[:1])
	data, _, end = r2.since(0)
	if data != "" || end != 0 {
		t.Errorf("half rune: %q %d", data, end)
	}
	r2.Write([]byte("é")[1:])
	if data, _, _ = r2.since(end); data != "é" {
		t.Errorf("whole rune: %q", data)
	}
}

func TestBackgroundOutputCapAndLimits(t *testing.T) {
	env := procEnv(t)
	// 300 KB of output: only the last 200 KB is kept, and a poll shows
	// at most procReadCap of it.
	id := startBG(t, env, "head -c 307200 /dev/zero | tr '\\0' 'x'; echo; echo END")
	out := mustOK(t, procCall(t, env, map[string]any{"action": "wait", "id": id, "timeout": 30}))
	if !strings.Contains(out, "exited with code 0") || !strings.Contains(out, "earlier bytes were dropped") ||
		!strings.Contains(out, "skipped; use action \"log\"") || !strings.HasSuffix(out, "END") {
		t.Errorf("wait output (%d bytes) head: %q tail: %q", len(out), clip(out, 300), out[max(0, len(out)-50):])
	}
	if len(out) > procReadCap+500 {
		t.Errorf("wait returned %d bytes", len(out))
	}
	out = mustOK(t, procCall(t, env, map[string]any{"action": "log", "id": id}))
	if !strings.Contains(out, "bytes of output were dropped") {
		t.Errorf("log: %q", clip(out, 300))
	}
}

// TestProcessManagerCloseKillsLeftoverGroups: a background shell that
// exited but left a child running in its group is not forgotten when
// newer processes push it out of the list, so Close still kills the child.
func TestProcessManagerCloseKillsLeftoverGroups(t *testing.T) {
	env := procEnv(t)
	m := env.Processes
	id := startBG(t, env, `sleep 300 > /dev/null 2>&1 & echo "child $!"`)
	out := mustOK(t, procCall(t, env, map[string]any{"action": "wait", "id": id, "timeout": 30}))
	var child int
	if _, err := fmt.Sscanf(out[strings.Index(out, "child "):], "child %d", &child); err != nil {
		t.Fatalf("no child pid in %q", out)
	}
	if procGone(child) {
		t.Fatal("child not running")
	}
	// Push proc_1 past procMaxKept finished processes.
	for range procMaxKept + 1 {
		mustOK(t, procCall(t, env, map[string]any{"action": "wait", "id": startBG(t, env, "true"), "timeout": 30}))
	}
	if len(m.List()) > procMaxKept+1 {
		t.Errorf("%d processes kept; finished ones without live groups should be forgotten", len(m.List()))
	}
	if _, err := m.get(id); err != nil {
		t.Errorf("%s forgotten while its group is alive: %v", id, err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if !procGone(child) {
		_ = syscall.Kill(child, syscall.SIGKILL)
		t.Errorf("child %d of a finished background shell survived Close", child)
	}
}
