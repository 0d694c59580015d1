package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
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
	tool.Timeout = time.Second
	res := runScript(t, tool, env, "print('start', flush=True)\nwhile True:\n    pass\n")
	if !res.IsError || !strings.Contains(res.Output, "timed out") || !strings.Contains(res.Output, "start") {
		t.Fatalf("output: %s", res.Output)
	}
}
