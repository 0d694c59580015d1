package app_test

import (
	"bufio"
	"encoding/json"
	"fmt"
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

// needPython skips a test of execute_code where python3 is missing (the
// tool is then not offered).
func needPython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not on PATH: execute_code is not offered, nothing to test")
	}
}

// execCall is an execute_code call of script.
func execCall(id, script string) pt.Call {
	b, _ := json.Marshal(map[string]string{"code": script})
	return pt.Call{ID: id, Name: "execute_code", Args: string(b)}
}

// TestExecuteCodeSummarisesFilesE2E: a script reads three files through
// read_file and prints a summary, which is the tool result; the three
// inner calls are in --json as tool.started/tool.completed with the
// script's call as parent_id, and do not enter the history.
func TestExecuteCodeSummarisesFilesE2E(t *testing.T) {
	needPython(t)
	home, cwd := t.TempDir(), t.TempDir()
	for i, n := range []string{"a.go", "b.go", "c.go"} {
		body := strings.Repeat("func f() {}\n", i+1)
		if err := os.WriteFile(filepath.Join(cwd, n), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := pt.New(t)
	srv.Push(pt.ToolCalls(execCall("x1", `from talaria_tools import *
total = 0
for name in ["a.go", "b.go", "c.go"]:
    total += read_file(path=name).count("func f()")
print("SUMMARY: 3 files,", total, "functions")
`)), pt.Text("done"))
	r := talaria(t, home, cwd, srv, "", "-p", "summarise", "--json", "--yolo")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	res := toolResults(t, srv)
	if len(res) != 1 || !strings.Contains(res[0], "SUMMARY: 3 files, 6 functions") || !strings.Contains(res[0], "exit code: 0") {
		t.Fatalf("tool results: %q", res)
	}
	started, completed := map[string]string{}, map[string]string{}
	for _, e := range events(t, r.stdout) {
		if e["parent_id"] == nil {
			continue
		}
		id, _ := e["id"].(string)
		switch e["type"] {
		case "tool.started":
			started[id], _ = e["name"].(string)
		case "tool.completed":
			if e["ok"] != true {
				t.Errorf("inner call %s failed: %v", id, e)
			}
			completed[id], _ = e["name"].(string)
		}
		if e["parent_id"] != "x1" {
			t.Errorf("parent_id %v, want x1", e["parent_id"])
		}
	}
	for _, id := range []string{"x1.1", "x1.2", "x1.3"} {
		if started[id] != "read_file" || completed[id] != "read_file" {
			t.Errorf("inner call %s not shown: started %v completed %v", id, started, completed)
		}
	}
}

// TestExecuteCodeRefundE2E: with --max-iterations 2, three iterations of
// only execute_code and a final answer complete; each such iteration is
// refunded with reason execute_code.
func TestExecuteCodeRefundE2E(t *testing.T) {
	needPython(t)
	home, cwd := t.TempDir(), t.TempDir()
	srv := pt.New(t)
	srv.Push(
		pt.ToolCalls(execCall("", "print(1)")),
		pt.ToolCalls(execCall("", "print(2)")),
		pt.ToolCalls(execCall("", "print(3)")),
		pt.Text("done"),
	)
	r := talaria(t, home, cwd, srv, "", "-p", "go", "--json", "--yolo", "--max-iterations", "2")
	if r.code != 0 {
		t.Fatalf("exit %d: %s\n%s", r.code, r.stderr, r.stdout)
	}
	n := 0
	for _, e := range events(t, r.stdout) {
		if e["type"] == "budget.refunded" && e["reason"] == "execute_code" {
			n++
		}
	}
	if n != 3 {
		t.Fatalf("want 3 execute_code refunds, got %d", n)
	}
}

// TestExecuteCodeTimeoutE2E: tools.execute_code.timeout kills an endless
// script and its child, and the result says it timed out.
func TestExecuteCodeTimeoutE2E(t *testing.T) {
	needPython(t)
	home, cwd := t.TempDir(), t.TempDir()
	writeConfig(t, home, "tools:\n  execute_code:\n    timeout: 5s\n")
	srv := pt.New(t)
	pidFile := filepath.Join(cwd, "child.pid")
	srv.Push(pt.ToolCalls(execCall("x1", fmt.Sprintf(`import subprocess
p = subprocess.Popen(["sleep", "600"])
open(%q, "w").write(str(p.pid))
print("looping", flush=True)
while True:
    pass
`, pidFile))), pt.Text("done"))
	r := talaria(t, home, cwd, srv, "", "-p", "go", "--yolo")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	res := toolResults(t, srv)
	if len(res) != 1 || !strings.Contains(res[0], "timed out after 5s") || !strings.Contains(res[0], "looping") {
		t.Fatalf("result: %q", res)
	}
	assertGone(t, pidFile)
}

// assertGone checks that the process whose pid is in file no longer runs
// (a zombie does not count).
func assertGone(t *testing.T, file string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("the script did not record its child: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil || strings.Contains(string(stat), ") Z ") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d outlived the script", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestExecuteCodeStopE2E: /stop on stdin ends a running endless script,
// with its child, and the turn ends interrupted.
func TestExecuteCodeStopE2E(t *testing.T) {
	needPython(t)
	home, cwd := t.TempDir(), t.TempDir()
	srv := pt.New(t)
	pidFile := filepath.Join(cwd, "child.pid")
	srv.Push(pt.ToolCalls(execCall("x1", fmt.Sprintf(`import subprocess
p = subprocess.Popen(["sleep", "600"])
open(%q, "w").write(str(p.pid))
print("READY", flush=True)
while True:
    pass
`, pidFile))), pt.Text("done"))
	cmd := exec.Command(binary, "-p", "go", "--stdin-commands", "--json", "--yolo")
	cmd.Env, cmd.Dir = env(home, srv), cwd
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitDone := make(chan error, 1)
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	ready := make(chan struct{})
	var last string
	go func() {
		once := false
		for sc.Scan() {
			line := sc.Text()
			last = line
			if !once && strings.Contains(line, `"tool.output"`) && strings.Contains(line, "READY") {
				once = true
				close(ready)
			}
		}
		waitDone <- cmd.Wait()
	}()
	select {
	case <-ready:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("the script never printed READY")
	}
	stopped := time.Now()
	_, _ = stdin.Write([]byte("/stop\n"))
	var err error
	select {
	case err = <-waitDone:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Signal(syscall.SIGKILL)
		t.Fatal("talaria did not end after /stop")
	}
	t.Logf("ended %s after /stop", time.Since(stopped).Round(time.Millisecond))
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("want exit 130, got %v (last event %s)", err, last)
	}
	assertGone(t, pidFile)
}

// TestExecuteCodeSandboxE2E: under --sandbox workspace-write (and --yolo)
// the script itself runs in the sandbox: it writes inside the working
// directory but not outside it.
func TestExecuteCodeSandboxE2E(t *testing.T) {
	needPython(t)
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bubblewrap is not installed")
	}
	home, base := t.TempDir(), notUnderTmp(t)
	cwd, outside := filepath.Join(base, "cwd"), filepath.Join(base, "outside")
	for _, d := range []string{cwd, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	target := filepath.Join(outside, "escaped")
	srv := pt.New(t)
	srv.Push(pt.ToolCalls(execCall("x1", fmt.Sprintf(`open("inside.txt", "w").write("ok")
try:
    open(%q, "w").write("escaped")
    print("ESCAPED")
except OSError as e:
    print("REFUSED", type(e).__name__)
`, target))), pt.Text("done"))
	r := talaria(t, home, cwd, srv, "", "-p", "go", "--yolo", "--sandbox", "workspace-write")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	res := toolResults(t, srv)
	if len(res) != 1 || !strings.Contains(res[0], "REFUSED") || strings.Contains(res[0], "ESCAPED") {
		t.Fatalf("result: %q", res)
	}
	if _, err := os.Stat(target); err == nil {
		t.Fatal("the script wrote outside the working directory")
	}
	if b, err := os.ReadFile(filepath.Join(cwd, "inside.txt")); err != nil || string(b) != "ok" {
		t.Fatalf("the write inside the working directory did not land: %v", err)
	}
}

// TestExecuteCodeMaxInnerCallsE2E: a script that would make 10,000 tool
// calls is stopped at max_inner_calls (here the default, 200) with a
// receipt of the calls that ran.
func TestExecuteCodeMaxInnerCallsE2E(t *testing.T) {
	needPython(t)
	home, cwd := t.TempDir(), t.TempDir()
	var lines strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&lines, "line %d\n", i)
	}
	if err := os.WriteFile(filepath.Join(cwd, "big.txt"), []byte(lines.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := pt.New(t)
	srv.Push(pt.ToolCalls(execCall("x1", `from talaria_tools import *
n = 0
for i in range(10000):
    read_file("big.txt", offset=i + 1, limit=1)
    n += 1
print("ALL", n)
`)), pt.Text("done"))
	r := talaria(t, home, cwd, srv, "", "-p", "go", "--yolo", "--json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	res := toolResults(t, srv)
	if len(res) != 1 || strings.Contains(res[0], "ALL") || !strings.Contains(res[0], "more than 200 tool calls") ||
		!strings.Contains(res[0], "Tool calls that ran (200)") {
		t.Fatalf("result: %q", res)
	}
	inner := 0
	for _, e := range events(t, r.stdout) {
		if e["type"] == "tool.started" && e["parent_id"] == "x1" {
			inner++
		}
	}
	if inner != 200 {
		t.Fatalf("%d inner calls ran, want 200", inner)
	}
}

// TestExecuteCodeOutputCappedE2E: a script printing 100 MB gives a result
// capped like terminal's, with its start and end.
func TestExecuteCodeOutputCappedE2E(t *testing.T) {
	needPython(t)
	home, cwd := t.TempDir(), t.TempDir()
	srv := pt.New(t)
	srv.Push(pt.ToolCalls(execCall("x1", `import sys
print("FIRST")
chunk = ("x" * 1023 + "\n") * 1024
for _ in range(100):
    sys.stdout.write(chunk)
print("LAST")
`)), pt.Text("done"))
	r := talaria(t, home, cwd, srv, "", "-p", "go", "--yolo")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	res := toolResults(t, srv)
	if len(res) != 1 || len(res[0]) > 60_000 || !strings.Contains(res[0], "FIRST") || !strings.Contains(res[0], "LAST") {
		n := 0
		if len(res) == 1 {
			n = len(res[0])
		}
		t.Fatalf("result of %d bytes not capped with its start and end", n)
	}
}

// TestExecuteCodeNotOfferedWithoutPython: without python3 on PATH the
// tool is not offered and a notice says so.
func TestExecuteCodeNotOfferedWithoutPython(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	srv := pt.New(t)
	srv.Push(pt.Text("done"))
	cmd := exec.Command(binary, "-p", "hi")
	cmd.Env = append(env(home, srv)[1:], "PATH="+t.TempDir())
	cmd.Dir = cwd
	r := runCmd(t, cmd)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "execute_code is not offered: python3 was not found on PATH") {
		t.Errorf("no notice: %s", r.stderr)
	}
	b, _ := json.Marshal(srv.Requests()[0]["tools"])
	if strings.Contains(string(b), `"execute_code"`) {
		t.Error("execute_code offered without python3")
	}
	if !strings.Contains(string(b), `"read_file"`) {
		t.Fatalf("tools not in the request: %s", b)
	}
}

// TestExecuteCodeInnerWriteRefusedHeadlessE2E: in headless ask mode, with
// execute_code itself allowed by a rule (--allowedTools), the script runs
// but its inner write_file needs an approval no one can give: it is
// refused with the usual explanation, the script catches it as ToolError,
// and nothing is written.
func TestExecuteCodeInnerWriteRefusedHeadlessE2E(t *testing.T) {
	needPython(t)
	home, cwd := t.TempDir(), t.TempDir()
	srv := pt.New(t)
	srv.Push(pt.ToolCalls(execCall("x1", `from talaria_tools import *
try:
    write_file(path="out.txt", content="hi")
    print("WROTE")
except ToolError as e:
    print("REFUSED:", str(e)[:200])
`)), pt.Text("done"))
	r := talaria(t, home, cwd, srv, "", "-p", "write", "--json", "--allowedTools", "execute_code")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	res := toolResults(t, srv)
	if len(res) != 1 || !strings.Contains(res[0], "REFUSED:") || strings.Contains(res[0], "WROTE") || !strings.Contains(res[0], "was not run") {
		t.Fatalf("tool results: %q", res)
	}
	if _, err := os.Stat(filepath.Join(cwd, "out.txt")); err == nil {
		t.Fatal("the refused inner write landed")
	}
	denied := false
	for _, e := range events(t, r.stdout) {
		if e["type"] == "tool.completed" && e["parent_id"] == "x1" && e["name"] == "write_file" {
			denied = e["ok"] != true
		}
	}
	if !denied {
		t.Error("no failed tool.completed with parent_id x1 for the inner write_file")
	}
}
