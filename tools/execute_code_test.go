package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// execTool returns an execute_code tool over the built-in tools, and an
// Env whose CallTool runs them through the registry, or skips the test
// without python3.
func execTool(t *testing.T, dir string) (ExecuteCodeTool, *Env) {
	t.Helper()
	py := FindPython()
	if py == "" {
		t.Skip("python3 is not on PATH (or this platform has no channel for scripts): execute_code is not offered")
	}
	reg := NewRegistry(Builtins()...)
	tool := ExecuteCodeTool{Python: py, Registry: reg, Timeout: 30 * time.Second}
	reg.Register(tool)
	env := &Env{Cwd: dir}
	env.CallTool = func(ctx context.Context, name, args string) Result { return reg.Call(ctx, env, name, args) }
	return tool, env
}

func runScript(t *testing.T, tool ExecuteCodeTool, env *Env, code string) Result {
	t.Helper()
	args, _ := json.Marshal(map[string]string{"code": code})
	return tool.Run(context.Background(), env, args)
}

func TestExecuteCodeReadsFilesAndCatchesToolError(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a.txt", "b.txt", "c.txt"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("line of "+n+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tool, env := execTool(t, dir)
	res := runScript(t, tool, env, `from talaria_tools import *
n = 0
for f in ["a.txt", "b.txt", "c.txt"]:
    out = read_file(f)
    n += out.count("line of")
print("files:", n)
try:
    read_file(path="missing.txt")
except ToolError as e:
    print("caught:", "missing" in str(e))
import sys
print("warn", file=sys.stderr)
`)
	if res.IsError {
		t.Fatalf("script failed: %s", res.Output)
	}
	for _, want := range []string{"files: 3", "caught: True", "[stderr] warn", "exit code: 0"} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("output lacks %q:\n%s", want, res.Output)
		}
	}
}

func TestExecuteCodeRefusesExcludedTools(t *testing.T) {
	tool, env := execTool(t, t.TempDir())
	res := runScript(t, tool, env, `import talaria_tools as tt
print(hasattr(tt, "clarify"), hasattr(tt, "execute_code"), hasattr(tt, "read_file"))
try:
    tt._call("clarify", {"question": "x"})
except tt.ToolError as e:
    print("refused:", "cannot be called" in str(e))
`)
	if !strings.Contains(res.Output, "False False True") || !strings.Contains(res.Output, "refused: True") {
		t.Fatalf("output: %s", res.Output)
	}
}

func TestExecuteCodeMaxInnerCalls(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("x\n"), 0o644)
	tool, env := execTool(t, dir)
	tool.MaxInnerCalls = 5
	res := runScript(t, tool, env, `from talaria_tools import *
for i in range(10000):
    read_file("a.txt")
print("finished all")
`)
	if !res.IsError || strings.Contains(res.Output, "finished all") || !strings.Contains(res.Output, "more than 5 tool calls") {
		t.Fatalf("not stopped at the limit: %s", res.Output)
	}
	if !strings.Contains(res.Output, "Tool calls that ran (5)") {
		t.Fatalf("receipt missing: %s", res.Output)
	}
}

func TestExecuteCodeTimeoutKills(t *testing.T) {
	tool, env := execTool(t, t.TempDir())
	tool.Timeout = 2 * time.Second
	res := runScript(t, tool, env, "while True:\n    pass\n")
	if !res.IsError || !strings.Contains(res.Output, "timed out after 2s") {
		t.Fatalf("output: %s", res.Output)
	}
}

// TestExecuteCodeOddToolNames: an MCP-style tool whose name and parameter
// are not Python identifiers is callable with a dict of its arguments;
// the generated module compiles with every description quoted safely.
func TestExecuteCodeOddToolNames(t *testing.T) {
	tool, env := execTool(t, t.TempDir())
	tool.Registry.Register(fakeSchemaTool{name: "srv__get-item", schema: `{"type":"object","properties":{"from":{"type":"string"}}}`})
	res := runScript(t, tool, env, `from talaria_tools import *
print(srv__get_item({"from": "x"}))
print(srv__get_item.__doc__.splitlines()[0])
`)
	if res.IsError || !strings.Contains(res.Output, `srv__get-item {"from":"x"}`) || !strings.Contains(res.Output, `a "quoted"`) {
		t.Fatalf("output: %s", res.Output)
	}
}

// TestExecuteCodeApprovalModes: the call itself is approved like a
// command whose effect cannot be judged: asked in ask and auto-edit
// (refused headless), refused in read-only, allowed under yolo.
func TestExecuteCodeApprovalModes(t *testing.T) {
	args := `{"code":"from talaria_tools import *\nprint(1)"}`
	for mode, want := range map[ApprovalMode]string{
		ApprovalAsk: "needs the user's approval", ApprovalAutoEdit: "needs the user's approval",
		ApprovalReadOnly: "the session is read-only", ApprovalYolo: "",
	} {
		a := NewApprover(mode, nil)
		a.Tools = NewRegistry(ExecuteCodeTool{})
		ok, denial := a.Check(context.Background(), "execute_code", args)
		if want == "" {
			if !ok {
				t.Errorf("%s: refused: %s", mode, denial.Output)
			}
			continue
		}
		if ok || !strings.Contains(denial.Output, want) || !strings.Contains(denial.Output, "Run a Python script (2 lines): print(1)") {
			t.Errorf("%s: allowed=%v %q", mode, ok, denial.Output)
		}
		asked := false
		a = NewApprover(mode, func(context.Context, ApprovalRequest) (ApprovalDecision, error) {
			asked = true
			return ApprovalDecision{Allow: true}, nil
		})
		a.Tools = NewRegistry(ExecuteCodeTool{})
		ok, _ = a.Check(context.Background(), "execute_code", args)
		if mode != ApprovalReadOnly && (!asked || !ok) {
			t.Errorf("%s: not asked (asked=%v ok=%v)", mode, asked, ok)
		}
	}
}

// TestExecuteCodeStrictArguments: unknown keys are refused at approval
// time with the tool's own words, before anything runs.
func TestExecuteCodeStrictArguments(t *testing.T) {
	a := NewApprover(ApprovalYolo, nil)
	ok, denial := a.Check(context.Background(), "execute_code", `{"code":"print(1)","cwd":"/"}`)
	if ok || !strings.Contains(denial.Output, "execute_code") {
		t.Fatalf("allowed=%v %q", ok, denial.Output)
	}
}

// BenchmarkExecuteCodeInnerCall is one read_file call made from a script
// (the script makes b.N of them; its start-up is spread over them).
// Compare with BenchmarkExecuteCodeDirectCall: the difference is the
// per-call overhead of the channel.
func BenchmarkExecuteCodeInnerCall(b *testing.B) {
	dir := b.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644)
	py := FindPython()
	if py == "" {
		b.Skip("python3 is not on PATH")
	}
	reg := NewRegistry(Builtins()...)
	tool := ExecuteCodeTool{Python: py, Registry: reg, Timeout: 10 * time.Minute, MaxInnerCalls: b.N + 1}
	env := &Env{Cwd: dir}
	env.CallTool = func(ctx context.Context, name, args string) Result { return reg.Call(ctx, env, name, args) }
	code, _ := json.Marshal(map[string]string{"code": fmt.Sprintf("from talaria_tools import *\nfor _ in range(%d):\n    read_file('a.txt')\n", b.N)})
	b.ResetTimer()
	cpu := cpuNow()
	res := tool.Run(context.Background(), env, code)
	if res.IsError {
		b.Fatal(res.Output)
	}
	b.ReportMetric(float64(cpuNow()-cpu)/float64(b.N), "cpu-ns/op")
}

// cpuNow is the CPU time (user and system) of this process and its
// reaped children: a figure that the load of the machine does not blur.
func cpuNow() int64 {
	var self, kids syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	return self.Utime.Nano() + self.Stime.Nano() + kids.Utime.Nano() + kids.Stime.Nano()
}

// BenchmarkExecuteCodeDirectCall is the same read_file call made directly.
func BenchmarkExecuteCodeDirectCall(b *testing.B) {
	dir := b.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644)
	reg := NewRegistry(Builtins()...)
	env := &Env{Cwd: dir}
	cpu, n := cpuNow(), 0
	for b.Loop() {
		if r := reg.Call(context.Background(), env, "read_file", `{"path":"a.txt"}`); r.IsError {
			b.Fatal(r.Output)
		}
		n++
	}
	b.ReportMetric(float64(cpuNow()-cpu)/float64(n), "cpu-ns/op")
}

// BenchmarkExecuteCodeStartup is a script that makes no call: the fixed
// cost of one execute_code call (python3's start-up included).
func BenchmarkExecuteCodeStartup(b *testing.B) {
	py := FindPython()
	if py == "" {
		b.Skip("python3 is not on PATH")
	}
	tool := ExecuteCodeTool{Python: py, Registry: NewRegistry(Builtins()...)}
	env := &Env{Cwd: b.TempDir()}
	code, _ := json.Marshal(map[string]string{"code": "from talaria_tools import *\n"})
	for b.Loop() {
		if r := tool.Run(context.Background(), env, code); r.IsError {
			b.Fatal(r.Output)
		}
	}
}

// TestExecuteCodeCancelGivesReceipt: cancelling the call (an interrupt,
// /cancel ID) while the script runs kills it and names the inner calls
// that ran.
func TestExecuteCodeCancelGivesReceipt(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("x\n"), 0o644)
	tool, env := execTool(t, dir)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inner := env.CallTool
	calls := 0
	env.CallTool = func(c context.Context, name, args string) Result {
		r := inner(c, name, args)
		if calls++; calls == 2 {
			cancel() // the script is past its second call
		}
		return r
	}
	args, _ := json.Marshal(map[string]string{"code": "from talaria_tools import *\nread_file('a.txt')\nsearch_files(pattern='x')\nwhile True:\n    pass\n"})
	res := tool.Run(ctx, env, args)
	if !res.IsError || !strings.Contains(res.Output, "cancelled after") ||
		!strings.Contains(res.Output, "Tool calls that ran (2): 1. read_file (ok); 2. search_files (ok)") {
		t.Fatalf("output: %s", res.Output)
	}
}
