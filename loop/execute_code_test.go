package loop

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"talaria/providers/providertest"
	"talaria/tools"
)

// execFixture is a fixture whose registry offers execute_code, or skips
// the test without python3.
func execFixture(t *testing.T, mod func(*Options)) *fixture {
	t.Helper()
	py := tools.FindPython()
	if py == "" {
		t.Skip("python3 is not on PATH: execute_code is not offered")
	}
	return newFixture(t, func(o *Options) {
		o.Tools.Register(tools.ExecuteCodeTool{Python: py, Registry: o.Tools, Timeout: 30 * time.Second})
		if mod != nil {
			mod(o)
		}
	})
}

// TestExecuteCodeInnerWriteRefusedHeadless: in the ask mode without a
// user, execute_code itself allowed (as an allow rule for it would), an
// inner write_file is refused by the same approver with the usual
// explanation, the script catches it as ToolError, nothing is written, and
// the refused call is visible with the script's call as parent_id.
func TestExecuteCodeInnerWriteRefusedHeadless(t *testing.T) {
	approver := tools.NewApprover(tools.ApprovalAsk, nil)
	f := execFixture(t, func(o *Options) {
		approver.Tools, approver.Cwd = o.Tools, o.ToolEnv.Cwd
		o.Approve = func(ctx context.Context, name, args string) (bool, tools.Result) {
			if name == "execute_code" {
				return true, tools.Result{}
			}
			return approver.Check(ctx, name, args)
		}
	})
	script := "from talaria_tools import *\ntry:\n    write_file(path='out.txt', content='x')\n    print('WROTE')\nexcept ToolError as e:\n    print('REFUSED:', e)\n"
	f.srv.Push(providertest.ToolCalls(providertest.Call{ID: "c1", Name: "execute_code", Args: args(map[string]string{"code": script})}),
		providertest.Text("done"))
	res := f.run(t, "go")
	if !res.Completed {
		t.Fatalf("turn: %+v", res)
	}
	msgs := messages(t, f.srv, 1)
	out, _ := msgs[len(msgs)-1]["content"].(string)
	if !strings.Contains(out, "REFUSED:") || !strings.Contains(out, "needs the user's approval") || strings.Contains(out, "WROTE") {
		t.Fatalf("script result: %s", out)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "out.txt")); err == nil {
		t.Fatal("the refused write landed")
	}
	var inner *ToolCompleted
	for _, c := range ofType[*ToolCompleted](f.rec) {
		if c.ParentID == "c1" {
			inner = c
		}
	}
	if inner == nil || inner.Name != "write_file" || !inner.Denied || inner.ID != "c1.1" {
		t.Fatalf("inner call not shown as a denied child of c1: %+v", inner)
	}
	if n := len(msgs); msgs[n-1]["tool_call_id"] != "c1" {
		t.Fatalf("the inner call entered the history: %v", msgs[n-1])
	}
}

// TestExecuteCodeBatchRefunded: a batch of only execute_code calls gives
// its iteration back, so three of them fit a budget of 2; a batch with
// another tool does not.
func TestExecuteCodeBatchRefunded(t *testing.T) {
	f := execFixture(t, func(o *Options) { o.MaxIterations = 2 })
	code := args(map[string]string{"code": "print('hi')"})
	f.srv.Push(
		providertest.ToolCalls(providertest.Call{Name: "execute_code", Args: code}),
		providertest.ToolCalls(providertest.Call{Name: "execute_code", Args: code}),
		providertest.ToolCalls(providertest.Call{Name: "execute_code", Args: code}),
		providertest.Text("done"),
	)
	res := f.run(t, "go")
	if !res.Completed {
		t.Fatalf("three execute_code iterations and an answer must fit a budget of 2: %+v", res)
	}
	n := 0
	for _, r := range ofType[*BudgetRefunded](f.rec) {
		if r.Reason == "execute_code" {
			n++
		}
	}
	if n != 3 {
		t.Fatalf("refunds: %d", n)
	}
	if onlyExecuteCode(nil) {
		t.Fatal("an empty batch is not refunded")
	}
}

// TestExecuteCodeCancelInnerCall: /cancel of one inner call (CancelCall
// with its id) stops that call alone: the script sees
// ToolError("cancelled…") and goes on to its next call; the execute_code
// call itself completes normally.
func TestExecuteCodeCancelInnerCall(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	f := execFixture(t, func(o *Options) { o.Tools.Register(slowTool{release}) })
	script := "from talaria_tools import *\ntry:\n    slow(n=1)\n    print('FINISHED')\nexcept ToolError as e:\n    print('CAUGHT:', e)\nprint('NEXT:', read_file(path='a.txt'))\n"
	if err := os.WriteFile(filepath.Join(f.dir, "a.txt"), []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.srv.Push(providertest.ToolCalls(providertest.Call{ID: "c1", Name: "execute_code", Args: args(map[string]string{"code": script})}),
		providertest.Text("done"))
	done := f.runAsync("go")
	ev := f.rec.waitFor(t, TypeToolOutput).(*ToolOutput)
	for ev.ID != "c1.1" {
		ev = f.rec.waitFor(t, TypeToolOutput).(*ToolOutput)
	}
	if !f.agent.CancelCall("c1.1") {
		t.Fatalf("CancelCall(c1.1) refused; running: %v", f.agent.RunningCalls())
	}
	res := <-done
	if !res.Completed {
		t.Fatalf("turn: %+v", res)
	}
	msgs := messages(t, f.srv, 1)
	out, _ := msgs[len(msgs)-1]["content"].(string)
	if !strings.Contains(out, "CAUGHT: cancelled") || strings.Contains(out, "FINISHED") || !strings.Contains(out, "NEXT:") || !strings.Contains(out, "alpha") {
		t.Fatalf("script result: %s", out)
	}
	var inner, outer *ToolCompleted
	for _, c := range ofType[*ToolCompleted](f.rec) {
		switch c.ID {
		case "c1.1":
			inner = c
		case "c1":
			outer = c
		}
	}
	if inner == nil || !inner.Cancelled || inner.ParentID != "c1" {
		t.Fatalf("inner call: %+v", inner)
	}
	if outer == nil || outer.Cancelled || !outer.OK {
		t.Fatalf("execute_code call: %+v", outer)
	}
}
