package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestTerminalBasics(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	term := TerminalTool{}
	out := mustOK(t, callTool(t, term, dir, map[string]any{"command": "echo out; echo err >&2"}))
	if out != "out\nerr\n\nexit code: 0" {
		t.Errorf("combined output = %q", out)
	}
	out = mustErr(t, callTool(t, term, dir, map[string]any{"command": "echo partial; exit 3"}), "partial", "exit code: 3")
	if strings.Contains(out, "timed out") {
		t.Errorf("plain failure reported as a timeout: %q", out)
	}
	out = mustOK(t, callTool(t, term, dir, map[string]any{"command": "true"}))
	if out != "(no output)\n\nexit code: 0" {
		t.Errorf("no output = %q", out)
	}
	// Runs in the session cwd, or in workdir (relative to it).
	out = mustOK(t, callTool(t, term, dir, map[string]any{"command": "pwd"}))
	if !strings.HasPrefix(out, dir+"\n") {
		t.Errorf("cwd = %q, want %s", out, dir)
	}
	out = mustOK(t, callTool(t, term, dir, map[string]any{"command": "pwd", "workdir": "sub"}))
	if !strings.HasPrefix(out, filepath.Join(dir, "sub")+"\n") {
		t.Errorf("workdir = %q", out)
	}
	mustErr(t, callTool(t, term, dir, map[string]any{"command": "pwd", "workdir": "missing"}), "not an existing directory")
	// stdin is /dev/null: cat ends at once.
	out = mustOK(t, callTool(t, term, dir, map[string]any{"command": "cat; echo after"}))
	if out != "after\n\nexit code: 0" {
		t.Errorf("stdin = %q", out)
	}
	// A process killed by a signal reports 128+N.
	mustErr(t, callTool(t, term, dir, map[string]any{"command": "kill -9 $$"}), "exit code: 137", "killed by signal")
	mustErr(t, callTool(t, term, dir, map[string]any{"command": "sleep 1", "background": true}), "not available in this session")
	mustErr(t, callTool(t, term, dir, map[string]any{"command": "  "}), "required")
	mustErr(t, callTool(t, term, dir, map[string]any{"command": "true", "timeout": 0}), "timeout")
	out = mustOK(t, callTool(t, term, dir, map[string]any{"command": "true", "timeout": 5000}))
	if !strings.Contains(out, "capped at 600") {
		t.Errorf("timeout cap note missing: %q", out)
	}
}

func TestTerminalOutputCap(t *testing.T) {
	term := TerminalTool{}
	out := mustOK(t, callTool(t, term, t.TempDir(), map[string]any{
		"command": `echo START; for i in $(seq 1 20000); do echo "line $i of the output"; done; echo END`,
	}))
	if len(out) > termOutputCap+200 {
		t.Errorf("output %d chars, over the cap", len(out))
	}
	if !strings.HasPrefix(out, "START\nline 1 of") || !strings.Contains(out, "line 20000 of the output\nEND\n\nexit code: 0") {
		t.Errorf("head or tail lost: %q … %q", out[:40], out[len(out)-80:])
	}
	if !strings.Contains(out, " bytes omitted …]") {
		t.Error("no omission marker")
	}
}

func TestHeadTailWriter(t *testing.T) {
	w := newHeadTail(10) // head 4, tail 6
	for _, s := range []string{"ab", "cdef", "ghij", "k", "lmnopqrs"} {
		if _, err := io.WriteString(w, s); err != nil {
			t.Fatal(err)
		}
	}
	if got := w.String(); got != "abcd\n[… 9 bytes omitted …]\nnopqrs" {
		t.Errorf("got %q", got)
	}
	w = newHeadTail(10)
	io.WriteString(w, "short")
	if got := w.String(); got != "short" {
		t.Errorf("got %q", got)
	}
	// Runes cut by the gap are dropped, not mangled.
	w = newHeadTail(10)
	io.WriteString(w, "aaa\u00e9"+strings.Repeat("x", 20)+"\u00e9bbbbb")
	if got := w.String(); !strings.HasPrefix(got, "aaa\n") || !strings.HasSuffix(got, "\nbbbbb") {
		t.Errorf("got %q", got)
	}
}

func TestTerminalTimeout(t *testing.T) {
	start := time.Now()
	r := callTool(t, TerminalTool{}, t.TempDir(), map[string]any{"command": "echo begun; sleep 30", "timeout": 1})
	elapsed := time.Since(start)
	mustErr(t, r, "begun", "timed out", "exit code: 143")
	if elapsed > 4*time.Second {
		t.Errorf("timeout took %v", elapsed)
	}
}

// startInGroup runs command (which must write "PGID PID..." to the FIFO
// named by $READY and keep running) and returns the result channel, the
// pids it reported, once they all run.
func startInGroup(t *testing.T, ctx context.Context, command string) (<-chan Result, []int) {
	t.Helper()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "ready")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	command = "READY=" + fifo + "; " + command
	args, _ := json.Marshal(map[string]any{"command": command})
	done := make(chan Result, 1)
	go func() { done <- TerminalTool{}.Run(ctx, &Env{Cwd: dir}, args) }()
	// Opening the FIFO blocks until the command opens it for writing.
	lineCh := make(chan string, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			lineCh <- ""
			return
		}
		defer f.Close()
		data, _ := io.ReadAll(f)
		lineCh <- string(data)
	}()
	var line string
	select {
	case line = <-lineCh:
	case r := <-done:
		t.Fatalf("command ended before reporting ready:\n%s", r.Output)
	case <-time.After(20 * time.Second):
		t.Fatal("command never reported ready")
	}
	var pids []int
	for _, f := range strings.Fields(line) {
		n, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("bad ready line %q", line)
		}
		pids = append(pids, n)
	}
	if len(pids) < 2 {
		t.Fatalf("ready line %q: want the pgid and pids", line)
	}
	for _, p := range pids[1:] {
		if procGone(p) {
			t.Fatalf("process %d not running before cancel", p)
		}
	}
	return done, pids
}

// procGone reports whether pid no longer runs (missing or a zombie).
func procGone(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return syscall.Kill(pid, 0) != nil
	}
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] == "Z"
}

// awaitCancelled cancels, then waits for the result and checks that every
// process of the group is gone.
func awaitCancelled(t *testing.T, cancel context.CancelFunc, done <-chan Result, pids []int, maxWait time.Duration) (Result, time.Duration) {
	t.Helper()
	start := time.Now()
	cancel()
	var r Result
	select {
	case r = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after cancellation")
	}
	elapsed := time.Since(start)
	if elapsed > maxWait {
		t.Errorf("Run returned %v after cancel, want under %v", elapsed, maxWait)
	}
	if groupAlive(pids[0]) {
		t.Errorf("process group %d still has live members after Run returned", pids[0])
	}
	for _, p := range pids[1:] {
		if !procGone(p) {
			t.Errorf("process %d survived the cancellation", p)
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
	}
	return r, elapsed
}

func TestTerminalCancelKillsProcessGroup(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// A background grandchild, a subshell with its own child, and a
	// foreground sleep holding the output pipe.
	done, pids := startInGroup(t, ctx,
		`sleep 100 & a=$!; (sleep 100 & wait) & b=$!; echo "$$ $a $b" > "$READY"; sleep 100; wait`)
	r, _ := awaitCancelled(t, cancel, done, pids, 2*time.Second)
	mustErr(t, r, "cancelled")
}

func TestTerminalCancelEscalatesToSIGKILL(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Everything ignores SIGTERM: only the SIGKILL a second later ends it.
	done, pids := startInGroup(t, ctx,
		`trap '' TERM; sleep 100 & a=$!; echo "$$ $a" > "$READY"; wait`)
	r, elapsed := awaitCancelled(t, cancel, done, pids, 3*time.Second)
	mustErr(t, r, "cancelled")
	if elapsed < termKillGrace-100*time.Millisecond {
		t.Errorf("SIGKILL came after %v, before the %v grace period", elapsed, termKillGrace)
	}
}

func TestTerminalBackgroundChildHoldingPipe(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	start := time.Now()
	r := callTool(t, TerminalTool{}, dir, map[string]any{
		"command": `sleep 30 & echo $! > pid; echo done`,
	})
	elapsed := time.Since(start)
	data, err := os.ReadFile(pidFile)
	if err == nil {
		if pid, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil {
			defer syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	out := mustOK(t, r)
	if !strings.HasPrefix(out, "done\n") || !strings.Contains(out, "background process") {
		t.Errorf("output = %q", out)
	}
	if elapsed > 4*time.Second {
		t.Errorf("Run blocked %v on a pipe held by a background process", elapsed)
	}
}

func TestTerminalCancelledBeforeStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := TerminalTool{}.Run(ctx, &Env{Cwd: t.TempDir()}, []byte(`{"command":"echo hi"}`))
	mustErr(t, r, "cancelled")
}

// readPid reads the pid a command wrote to file.
func readPid(t *testing.T, file string) int {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatalf("pid file: %q", data)
	}
	return pid
}

// TestTerminalStopsLeftoverBackgroundChildren: what a foreground command
// puts in the background with & does not outlive the call, even when it
// ignores SIGTERM, and the call returns within the pipe grace.
func TestTerminalStopsLeftoverBackgroundChildren(t *testing.T) {
	for _, tc := range []struct {
		name, command string
		minWait       time.Duration
	}{
		{"server redirected to a log", `sleep 300 > log 2>&1 & echo $! > pid; echo started`, 0},
		// The child says when its trap is set, so the SIGTERM cannot come
		// first (which made this case flaky).
		{"child ignoring SIGTERM", `(trap '' TERM; : > ready; exec sleep 300) > /dev/null 2>&1 & echo $! > pid; until [ -e ready ]; do sleep 0.01; done; echo started`, termKillGrace - 100*time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			start := time.Now()
			r := callTool(t, TerminalTool{}, dir, map[string]any{"command": tc.command})
			elapsed := time.Since(start)
			pid := readPid(t, filepath.Join(dir, "pid"))
			if !procGone(pid) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				t.Fatalf("background child %d outlived the terminal call", pid)
			}
			out := mustOK(t, r)
			if !strings.HasPrefix(out, "started\n") || !strings.Contains(out, "left background processes running") || !strings.Contains(out, "background=true") {
				t.Errorf("output = %q", out)
			}
			if elapsed < tc.minWait || elapsed > termPipeGrace+time.Second {
				t.Errorf("call took %v; want between %v and about %v", elapsed, tc.minWait, termPipeGrace)
			}
		})
	}
	// A command without leftovers says nothing about them.
	out := mustOK(t, callTool(t, TerminalTool{}, t.TempDir(), map[string]any{"command": "(sleep 0.01) & wait; echo ok"}))
	if out != "ok\n\nexit code: 0" {
		t.Errorf("output = %q", out)
	}
}

// TestTerminalShellDiesWithTalaria: on Linux the shell of a foreground call
// is killed by the kernel when the talaria process dies. The test runs the
// terminal tool in a child test binary, kills that, and checks the shell.
func TestTerminalShellDiesWithTalaria(t *testing.T) {
	if fifo := os.Getenv("TALARIA_TEST_DEATHSIG_FIFO"); fifo != "" {
		// The child: run a shell that reports its pid and waits.
		TerminalTool{}.Run(context.Background(), &Env{Cwd: t.TempDir()},
			[]byte(`{"command":"echo $$ > `+fifo+`; exec sleep 300","timeout":600}`))
		return
	}
	if runtime.GOOS != "linux" {
		t.Skip("Pdeathsig is Linux only")
	}
	fifo := filepath.Join(t.TempDir(), "ready")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	child := exec.Command(os.Args[0], "-test.run=^TestTerminalShellDiesWithTalaria$", "-test.count=1")
	child.Env = append(os.Environ(), "TALARIA_TEST_DEATHSIG_FIFO="+fifo)
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer child.Process.Kill()
	f, err := os.Open(fifo) // blocks until the shell opens it
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(f)
	f.Close()
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || procGone(pid) {
		t.Fatalf("shell pid %q not running", data)
	}
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
	// The kernel sent SIGKILL when the child exited; the shell's death is
	// asynchronous to that, so watch for it with a deadline.
	for deadline := time.Now().Add(5 * time.Second); !procGone(pid); {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("shell %d survived the death of its talaria process", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
