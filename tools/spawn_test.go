package tools

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the test binary serve as the spawner, as the talaria
// binary does.
func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == SpawnerArg {
		os.Exit(SpawnMain(os.Args[2:]))
	}
	// A race-built spawner would sleep a second at exit for late race
	// reports, which the timing of the terminal tests does not allow.
	os.Setenv("GORACE", "atexit_sleep_ms=0")
	os.Exit(m.Run())
}

// markerSeq makes each marker unique within the test binary.
var markerSeq atomic.Int64

// sleepMarker returns a sleep length unique to this test run (a sleep of
// 305.PID... seconds), to find its processes in /proc, and kills whatever
// still runs it when the test ends.
func sleepMarker(t *testing.T) string {
	t.Helper()
	m := fmt.Sprintf("305.%d%03d", os.Getpid(), markerSeq.Add(1))
	t.Cleanup(func() {
		for _, pid := range procsWith(m) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	return m
}

// procsWith lists the live processes whose command line holds s.
func procsWith(s string) []int {
	var out []int
	self := os.Getpid()
	files, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil || !strings.Contains(string(b), s) {
			continue
		}
		pid, _ := strconv.Atoi(strings.Split(f, "/")[2])
		if pid == self {
			continue
		}
		if st, err := readProc(pid); err == nil && !st.zombie {
			out = append(out, pid)
		}
	}
	return out
}

// noneWithin waits up to d until no live process's command line holds s.
func noneWithin(s string, d time.Duration) []int {
	deadline := time.Now().Add(d)
	for {
		left := procsWith(s)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// spawnEnv returns an Env whose commands start through the spawner (this
// test binary) with the environment environ.
func spawnEnv(t *testing.T, environ []string) *Env {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the spawner needs Linux")
	}
	pm := NewProcessManager()
	pm.SetSpawner(os.Args[0])
	t.Cleanup(func() { pm.Close() })
	return &Env{Cwd: t.TempDir(), Processes: pm, Commands: CommandPolicy{Environ: environ}}
}

// A command's parent is the spawner, whose environment is the command's
// own (no secret of the process that runs the tools), and whose command
// line says what it is.
func TestSpawnerIsTheParent(t *testing.T) {
	environ := []string{"PATH=" + os.Getenv("PATH"), "SPAWN_MARK=seen"}
	env := spawnEnv(t, environ)
	res := TerminalTool{}.Run(context.Background(), env, []byte(`{"command":"tr '\\0' '\\n' < /proc/$PPID/environ; echo ---; tr '\\0' ' ' < /proc/$PPID/cmdline"}`))
	if res.IsError {
		t.Fatal(res.Output)
	}
	envPart, cmdPart, _ := strings.Cut(res.Output, "---")
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(envPart), "\n") {
		if l != "" {
			got = append(got, l)
		}
	}
	slices.Sort(got)
	want := slices.Clone(environ)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("the parent's environment is %q, want the command's own %q", got, want)
	}
	if !strings.Contains(cmdPart, SpawnerArg) {
		t.Errorf("the parent is not the spawner: %q", cmdPart)
	}
}

// Exit codes and deaths by signal come through the spawner as they were.
func TestSpawnerKeepsExitStatus(t *testing.T) {
	env := spawnEnv(t, nil)
	for cmd, want := range map[string]string{
		"exit 3":         "exit code: 3",
		"true":           "exit code: 0",
		"kill -TERM $$":  "exit code: 143 (killed by signal terminated)",
		"kill -SEGV $$":  "exit code: 139 (killed by signal segmentation fault)",
		"kill -KILL $$":  "exit code: 137 (killed by signal killed)",
		"kill -USR1 $$":  "exit code: 138 (killed by signal user defined signal 1)",
		"echo out; exit": "out",
	} {
		res := TerminalTool{}.Run(context.Background(), env, []byte(fmt.Sprintf(`{"command":%q}`, cmd)))
		if !strings.Contains(res.Output, want) {
			t.Errorf("%s: %q, want %q", cmd, res.Output, want)
		}
	}
}

// A timed-out command gets SIGTERM once (its trap runs) and then nothing
// of it is left, setsid daemons included.
func TestSpawnerTimeout(t *testing.T) {
	env := spawnEnv(t, nil)
	m := sleepMarker(t)
	res := TerminalTool{}.Run(context.Background(), env, []byte(`{"command":"(setsid sleep `+m+` &); trap 'echo got-term; exit 5' TERM; sleep 100 & wait","timeout":1}`))
	if !strings.Contains(res.Output, "timed out") || strings.Count(res.Output, "got-term") != 1 {
		t.Errorf("timeout: %q", res.Output)
	}
	if left := noneWithin(m, 10*time.Second); len(left) > 0 {
		t.Errorf("processes %v outlived the timed-out command", left)
	}
}

// A foreground command that leaves a setsid daemon: the daemon is stopped
// when the command exits, and the result says so truly.
func TestSpawnerStopsSetsidLeftover(t *testing.T) {
	env := spawnEnv(t, nil)
	m := sleepMarker(t)
	res := TerminalTool{}.Run(context.Background(), env, []byte(`{"command":"(setsid sleep `+m+` &); echo started"}`))
	if !strings.Contains(res.Output, "started") || !strings.Contains(res.Output, "they were stopped") {
		t.Errorf("result: %q", res.Output)
	}
	if left := procsWith(m); len(left) > 0 {
		t.Errorf("the setsid daemon %v outlived the call that said it was stopped", left)
	}
}

// A background command's setsid daemon dies with the process tool's kill.
func TestSpawnerBackgroundKill(t *testing.T) {
	env := spawnEnv(t, nil)
	m := sleepMarker(t)
	id, err := env.Processes.Start(env.Commands, "(setsid sleep "+m+" &); sleep 100", env.Cwd)
	if err != nil {
		t.Fatal(err)
	}
	if waitFor(func() bool { return len(procsWith(m)) > 0 }, 10*time.Second) != nil {
		t.Fatal("the daemon never started")
	}
	if err := env.Processes.Kill(id); err != nil {
		t.Fatal(err)
	}
	if left := noneWithin(m, 10*time.Second); len(left) > 0 {
		t.Errorf("processes %v outlived the kill", left)
	}
	if info := env.Processes.List()[0]; info.Running || !info.Killed {
		t.Errorf("after kill: %+v", info)
	}
}

// waitFor polls cond up to d.
func waitFor(cond func() bool, d time.Duration) error {
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("not within %s", d)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}

// A signal sent to the spawner alone reaches the command (its status
// comes back on the control socket while a setsid daemon keeps the
// spawner); when the process on the other end of the control socket is
// gone (here: the socket is closed), the spawner kills the command's
// whole tree and exits.
func TestSpawnerRelaysAndEndsWithItsParent(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the spawner needs Linux")
	}
	m := sleepMarker(t)
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	_ = syscall.SetNonblock(fds[0], true) // pollable: Close ends a Read in flight
	ours, theirs := os.NewFile(uintptr(fds[0]), "ours"), os.NewFile(uintptr(fds[1]), "theirs")
	script := "trap 'exit 7' TERM; (setsid sleep " + m + " &); sleep 100 & wait"
	cmd := exec.Command(os.Args[0], SpawnerArg, "--", "/bin/sh", "sh", "-c", script)
	cmd.ExtraFiles = []*os.File{theirs}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	theirs.Close()
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := make(chan string, 4)
	go func() {
		defer close(lines)
		b := make([]byte, 256)
		var acc string
		for {
			n, err := ours.Read(b)
			acc += string(b[:n])
			for {
				l, rest, ok := strings.Cut(acc, "\n")
				if !ok {
					break
				}
				lines <- l
				acc = rest
			}
			if err != nil {
				return
			}
		}
	}()
	next := func() string {
		select {
		case l := <-lines:
			return l
		case <-time.After(10 * time.Second):
			t.Fatal("no line from the spawner")
			return ""
		}
	}
	if l := next(); !strings.HasPrefix(l, "pid ") {
		t.Fatalf("first line %q", l)
	}
	if waitFor(func() bool { return len(procsWith(m)) > 0 }, 10*time.Second) != nil {
		t.Fatal("the daemon never started")
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	l := next()
	var ws uint32
	if _, err := fmt.Sscanf(l, "exit %d", &ws); err != nil || syscall.WaitStatus(ws).ExitStatus() != 7 {
		t.Fatalf("after SIGTERM to the spawner: %q, want the trap's exit 7", l)
	}
	if len(procsWith(m)) == 0 {
		t.Fatal("the daemon died with the shell: the test proves nothing")
	}
	ours.Close() // talaria is gone
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the spawner did not exit after its control socket closed")
	}
	if left := noneWithin(m, 10*time.Second); len(left) > 0 {
		t.Errorf("processes %v outlived the spawner's parent", left)
	}
}

// A command cancelled while its spawner is still starting is cancelled,
// not an error of the spawner (which may not catch signals yet).
func TestSpawnerCancelledWhileStarting(t *testing.T) {
	env := spawnEnv(t, nil)
	for range 5 {
		ctx, cancel := context.WithCancel(context.Background())
		go cancel()
		res := TerminalTool{}.Run(ctx, env, []byte(`{"command":"sleep 100"}`))
		cancel()
		if !strings.Contains(res.Output, "cancelled") || strings.Contains(res.Output, "spawner") {
			t.Fatalf("result %q", res.Output)
		}
	}
}
