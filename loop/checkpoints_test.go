package loop

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"talaria/providers"
	pt "talaria/providers/providertest"
)

// interruptOn returns a sink that interrupts the agent when an event of the
// given type arrives, from inside the turn goroutine: the interrupt lands
// exactly at that point of the turn.
func interruptOn(f *fixture, typ string) {
	inner := f.agent.opts.Sink
	done := false
	f.agent.opts.Sink = func(e Event) {
		inner(e)
		if e.Meta().Type == typ && !done {
			done = true
			f.agent.Interrupt()
		}
	}
}

func TestInterruptBeforeToolBatchSkipsEveryCall(t *testing.T) {
	f := newFixture(t, nil)
	interruptOn(f, TypeMessageCompleted)
	f.srv.Push(pt.ToolCalls(
		pt.Call{ID: "a", Name: "write_file", Args: `{"path":"never.txt","content":"x"}`},
		pt.Call{ID: "b", Name: "read_file", Args: `{"path":"x"}`},
	))
	res := f.run(t, "go")
	if res.ExitReason.Kind != ExitInterruptedByUser {
		t.Fatalf("result: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "never.txt")); err == nil {
		t.Fatal("a tool ran after the interrupt")
	}
	var receipts int
	for _, m := range f.agent.History() {
		if m.Role == providers.RoleTool && strings.Contains(m.Content, "was skipped due to user interrupt") {
			receipts++
		}
	}
	if receipts != 2 || len(ofType[*ToolStarted](f.rec)) != 0 {
		t.Fatalf("want 2 receipts and no tool.started, got %d receipts, %d started", receipts, len(ofType[*ToolStarted](f.rec)))
	}
}

func TestInterruptAtLoopTop(t *testing.T) {
	f := newFixture(t, nil)
	interruptOn(f, TypeToolCompleted)
	f.srv.Push(pt.ToolCalls(pt.Call{Name: "search_files", Args: `{"pattern":"q"}`}))
	res := f.run(t, "go")
	if res.ExitReason.Kind != ExitInterruptedByUser || len(f.srv.Requests()) != 1 {
		t.Fatalf("result: %+v, %d requests", res, len(f.srv.Requests()))
	}
	h := f.agent.History()
	if last := h[len(h)-1]; last.Role != providers.RoleAssistant {
		t.Fatalf("session must end on a closing assistant message, not %s", last.Role)
	}
}

func TestInterruptAtIterationStart(t *testing.T) {
	f := newFixture(t, nil)
	interruptOn(f, TypeIterationStarted)
	f.srv.Push(pt.Text("unused"))
	res := f.run(t, "go")
	if !res.ExitReason.Interrupted() || res.Completed {
		t.Fatalf("result: %+v", res)
	}
}

func TestSteerDuringToolsDeliveredNextCall(t *testing.T) {
	f := newFixture(t, nil)
	inner := f.agent.opts.Sink
	f.agent.opts.Sink = func(e Event) {
		inner(e)
		if _, ok := e.(*ToolStarted); ok {
			f.agent.Steer("steered while the tool ran")
		}
	}
	f.srv.Push(pt.ToolCalls(pt.Call{Name: "search_files", Args: `{"pattern":"q"}`}), pt.Text("done"))
	res := f.run(t, "go")
	if !res.Completed || res.PendingSteer != "" {
		t.Fatalf("result: %+v", res)
	}
	if !strings.Contains(f.srv.RawRequests()[1], "steered while the tool ran") {
		t.Fatal("steer sent during tools did not reach the next call")
	}
}

func TestInterruptDuringNudgeStillClosesTheSession(t *testing.T) {
	f := newFixture(t, nil)
	inner := f.agent.opts.Sink
	n := 0
	f.agent.opts.Sink = func(e Event) {
		inner(e)
		if _, ok := e.(*IterationStarted); ok {
			if n++; n == 3 { // the call after the post-tool nudge
				f.agent.Interrupt()
			}
		}
	}
	f.srv.Push(pt.ToolCalls(pt.Call{Name: "search_files", Args: `{"pattern":"q"}`}), emptyReply(), pt.Text("unused"))
	res := f.run(t, "go")
	if !res.ExitReason.Interrupted() {
		t.Fatalf("result: %+v", res)
	}
	h := f.agent.History()
	if last := h[len(h)-1]; last.Role != providers.RoleAssistant || last.Content == postToolNudge {
		t.Fatalf("session ends on %s %q", last.Role, last.Content)
	}
}

func TestLateSteerComesBackAsPending(t *testing.T) {
	f := newFixture(t, func(o *Options) {})
	f.agent.opts.AfterTurn = func(Result) error {
		f.agent.Steer("arrived during the epilogue")
		return nil
	}
	f.srv.Push(pt.Text("done"))
	res := f.run(t, "go")
	if res.PendingSteer != "arrived during the epilogue" {
		t.Fatalf("late steer lost: %+v", res)
	}
	if s, _ := f.agent.takeSteer(); s != "" {
		t.Fatal("the late steer also stayed queued for the next turn")
	}
}
