package app_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	pt "talaria/providers/providertest"
)

// gone reports whether pid has exited (a zombie counts as gone).
func gone(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] == "Z"
}

// goneWithin waits up to d for pid to exit.
func goneWithin(pid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for !gone(pid) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

// pidFromFifo reads the pid a command wrote into fifo (blocking until it
// does).
func pidFromFifo(t *testing.T, fifo string) int {
	t.Helper()
	b, err := os.ReadFile(fifo)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("pid %q", b)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	return pid
}

// startWithCommands starts a headless talaria whose model runs a
// background command and then a foreground compound one (`...; echo y`),
// each reporting the pid of its sleep through a FIFO; it returns the
// running talaria and the two pids.
func startWithCommands(t *testing.T, home, cwd string, srv *pt.Server) (*exec.Cmd, int, int) {
	t.Helper()
	dir := t.TempDir()
	bgFifo, fgFifo := filepath.Join(dir, "bg"), filepath.Join(dir, "fg")
	for _, f := range []string{bgFifo, fgFifo} {
		if err := syscall.Mkfifo(f, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	srv.Push(
		pt.ToolCalls(pt.Call{Name: "terminal", Args: `{"command":"sh -c 'echo $$ > ` + bgFifo + `; exec sleep 30'; echo y","background":true}`}),
		pt.ToolCalls(pt.Call{Name: "terminal", Args: `{"command":"sh -c 'echo $$ > ` + fgFifo + `; exec sleep 30'; echo y"}`}),
	)
	cmd := exec.Command(binary, "-p", "run things", "--yolo")
	cmd.Env = env(home, srv)
	cmd.Dir = cwd
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	bg, fg := pidFromFifo(t, bgFifo), pidFromFifo(t, fgFifo)
	// talaria records a command's group just after starting it; the test
	// kills it only once both are recorded (the few microseconds between
	// a fork and its record are not covered: see the closing note).
	for _, pid := range []int{bg, fg} {
		waitRecorded(t, home, pid)
	}
	return cmd, bg, fg
}

// waitRecorded waits (10 s at most) until the process group of pid is in
// a run file under home's $TALARIA_HOME/run.
func waitRecorded(t *testing.T, home string, pid int) {
	t.Helper()
	pgid, err := syscall.Getpgid(pid)
	if err != nil {
		t.Fatal(err)
	}
	want := "group " + strconv.Itoa(pgid) + " "
	deadline := time.Now().Add(10 * time.Second)
	for {
		files, _ := filepath.Glob(filepath.Join(home, ".talaria", "run", "*"))
		for _, f := range files {
			if b, err := os.ReadFile(f); err == nil && strings.Contains(string(b), want) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the group of pid %d was never recorded under %s/.talaria/run", pid, home)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// SIGKILL of talaria leaves no process behind: not a background command,
// not the child of a foreground compound command (the watchdog ends them).
func TestSIGKILLLeavesNoProcess(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	srv := pt.New(t)
	cmd, bg, fg := startWithCommands(t, home, cwd, srv)
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	for name, pid := range map[string]int{"background": bg, "foreground child": fg} {
		if !goneWithin(pid, 10*time.Second) {
			t.Errorf("the %s command (pid %d) outlived talaria", name, pid)
		}
	}
}

// When the watchdog and the spawners die too, the next talaria start ends
// what the killed one left, by its run file under $TALARIA_HOME/run.
func TestNextStartCleansUpOrphans(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	srv := pt.New(t)
	cmd, bg, fg := startWithCommands(t, home, cwd, srv)
	// Kill the watchdog (talaria's child running with the watchdog
	// variable) and the commands' spawners (which end their commands
	// when talaria dies) first, then talaria.
	for _, wd := range childrenOf(cmd.Process.Pid) {
		env, _ := os.ReadFile("/proc/" + strconv.Itoa(wd) + "/environ")
		argv, _ := os.ReadFile("/proc/" + strconv.Itoa(wd) + "/cmdline")
		if strings.Contains(string(env), "TALARIA_WATCHDOG_FILE=") || strings.Contains(string(argv), "__talaria_spawn") {
			_ = syscall.Kill(wd, syscall.SIGKILL)
			goneWithin(wd, 5*time.Second)
		}
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if gone(bg) {
		t.Fatal("the background command died without the watchdog: the test proves nothing")
	}
	srv.Push(pt.Text("hello"))
	if r := talaria(t, home, cwd, srv, "", "-p", "again"); r.code != 0 {
		t.Fatalf("next run: %d %s", r.code, r.stderr)
	}
	for name, pid := range map[string]int{"background": bg, "foreground child": fg} {
		if !goneWithin(pid, 10*time.Second) {
			t.Errorf("the %s command (pid %d) survived the next start", name, pid)
		}
	}
}

// childrenOf lists the pids whose parent is pid.
func childrenOf(pid int) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(data)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, p)
		}
	}
	return out
}

// daemonMarker returns a sleep length unique to this test (305.PID...),
// to find the processes of `sleep MARKER` in /proc, and kills whatever
// still runs it when the test ends.
func daemonMarker(t *testing.T, n int) string {
	t.Helper()
	m := "305." + strconv.Itoa(os.Getpid()) + strconv.Itoa(n)
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
	files, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil || !strings.Contains(string(b), s) {
			continue
		}
		if pid, err := strconv.Atoi(strings.Split(f, "/")[2]); err == nil && pid != os.Getpid() && !gone(pid) {
			out = append(out, pid)
		}
	}
	return out
}

// noneWithin waits up to d until no live process's command line holds
// any of marks, and returns those still alive then.
func noneWithin(d time.Duration, marks ...string) []int {
	deadline := time.Now().Add(d)
	for {
		var left []int
		for _, m := range marks {
			left = append(left, procsWith(m)...)
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// startedWithin waits up to d until a process's command line holds s.
func startedWithin(t *testing.T, s string, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for len(procsWith(s)) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no process runs %q", s)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// setsid daemons that commands leave (`(setsid sleep 305 &)`, out of the
// command's process group and session) do not outlive talaria: not after
// a normal exit, neither from a foreground nor from a background command,
// and the foreground result's note that they were stopped is true.
func TestSetsidDaemonsDieWhenTalariaExits(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	fg, bg := daemonMarker(t, 1), daemonMarker(t, 2)
	srv := pt.New(t)
	srv.Push(
		pt.ToolCalls(pt.Call{Name: "terminal", Args: `{"command":"(setsid sleep ` + bg + ` &); sleep 1000","background":true}`}),
		pt.ToolCalls(pt.Call{Name: "terminal", Args: `{"command":"(setsid sleep ` + fg + ` &); echo started"}`}),
		pt.Text("done"),
	)
	if r := talaria(t, home, cwd, srv, "", "-p", "leave daemons", "--yolo"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	reqs := srv.RawRequests()
	if len(reqs) != 3 || !strings.Contains(reqs[2], "started") {
		t.Fatalf("the foreground command did not run: %v", reqs)
	}
	if left := noneWithin(10*time.Second, fg, bg); len(left) > 0 {
		t.Errorf("setsid daemons %v outlived talaria's exit", left)
	}
	if strings.Contains(reqs[2], "they were stopped") && !strings.Contains(reqs[2], "could not") {
		return // the note is true: checked above
	}
	t.Errorf("the foreground result does not say its leftover was stopped: %s", reqs[2])
}

// After SIGKILL of talaria no setsid daemon of a background or a running
// foreground command survives.
func TestSetsidDaemonsDieWithKilledTalaria(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	fg, bg := daemonMarker(t, 3), daemonMarker(t, 4)
	srv := pt.New(t)
	srv.Push(
		pt.ToolCalls(pt.Call{Name: "terminal", Args: `{"command":"(setsid sleep ` + bg + ` &); sleep 1000","background":true}`}),
		pt.ToolCalls(pt.Call{Name: "terminal", Args: `{"command":"(setsid sleep ` + fg + ` &); sleep 1000"}`}),
	)
	cmd := exec.Command(binary, "-p", "leave daemons", "--yolo")
	cmd.Env = env(home, srv)
	cmd.Dir = cwd
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	startedWithin(t, bg, 20*time.Second)
	startedWithin(t, fg, 20*time.Second)
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if left := noneWithin(10*time.Second, fg, bg); len(left) > 0 {
		t.Errorf("setsid daemons %v outlived talaria's SIGKILL", left)
	}
}
