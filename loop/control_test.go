package loop

import (
	"strings"
	"testing"

	"talaria/providers"
	pt "talaria/providers/providertest"
)

func TestInterruptDuringAPICall(t *testing.T) {
	f := newFixture(t, nil)
	hold := make(chan struct{})
	defer close(hold)
	f.srv.Push(pt.Reply{Chunks: pt.TextChunks("never finished", "stop"), Hold: hold})
	done := f.runAsync("hi")
	<-f.srv.Started()
	f.agent.Interrupt()
	res := await(t, done)
	if res.ExitReason.Kind != ExitInterruptedDuringAPI || res.Completed {
		t.Fatalf("result: %+v", res)
	}
	h := f.agent.History()
	if h[len(h)-1].Role == providers.RoleTool {
		t.Fatal("history ends on a tool message")
	}
}

func TestInterruptDuringToolCancelsAndCloses(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Push(pt.ToolCalls(
		pt.Call{ID: "t1", Name: "terminal", Args: `{"command":"sleep 60"}`},
		pt.Call{ID: "t2", Name: "read_file", Args: `{"path":"x"}`},
	))
	done := f.runAsync("run it")
	f.rec.waitFor(t, TypeToolStarted)
	f.agent.Interrupt()
	res := await(t, done)
	if res.ExitReason.Kind != ExitInterruptedByUser {
		t.Fatalf("result: %+v", res)
	}
	h := f.agent.History()
	byID := map[string]providers.Message{}
	for _, m := range h {
		if m.Role == providers.RoleTool {
			byID[m.ToolCallID] = m
		}
	}
	if len(byID) != 2 {
		t.Fatalf("every tool_call_id needs a result: %+v", byID)
	}
	if want := "[Tool execution cancelled — read_file was skipped due to user interrupt]"; byID["t2"].Content != want {
		t.Fatalf("receipt: %q", byID["t2"].Content)
	}
	if last := h[len(h)-1]; last.Role != providers.RoleAssistant {
		t.Fatalf("session ends on %s, want a closing assistant message", last.Role)
	}
	for _, c := range ofType[*ToolCompleted](f.rec) {
		if !c.Cancelled {
			t.Fatalf("tool not marked cancelled: %+v", c)
		}
	}
}

func TestSteerDuringAPICallDeliveredIntoToolResult(t *testing.T) {
	f := newFixture(t, nil)
	hold := make(chan struct{})
	f.srv.Push(
		pt.Reply{Chunks: pt.ToolCallChunks("tool_calls", pt.Call{ID: "c1", Name: "search_files", Args: `{"pattern":"zzz"}`}), Hold: hold},
		pt.Text("Switched to the other approach."),
	)
	done := f.runAsync("look around")
	<-f.srv.Started()
	f.agent.Steer("use the other approach")
	f.agent.Steer("and be brief")
	close(hold)
	res := await(t, done)
	if !res.Completed || res.PendingSteer != "" {
		t.Fatalf("result: %+v", res)
	}
	msgs := messages(t, f.srv, 1)
	last := msgs[len(msgs)-1]
	content := last["content"].(string)
	if last["role"] != "tool" || !strings.Contains(content, SteerOpen+"\nuse the other approach\nand be brief\n"+SteerClose) {
		t.Fatalf("steer not in the last tool message: %q", content)
	}
	d := ofType[*SteerDelivered](f.rec)
	if len(d) != 1 || d[0].Iteration != 2 || len(ofType[*SteerQueued](f.rec)) != 2 {
		t.Fatalf("steer events: %+v", d)
	}
}

func TestSteerWithoutToolMessageComesBackPending(t *testing.T) {
	f := newFixture(t, nil)
	hold := make(chan struct{})
	f.srv.Push(pt.Reply{Chunks: pt.TextChunks("Plain answer.", "stop"), Hold: hold})
	done := f.runAsync("q")
	<-f.srv.Started()
	f.agent.Steer("also mention tests")
	close(hold)
	res := await(t, done)
	if res.PendingSteer != "also mention tests" {
		t.Fatalf("pending steer: %+v", res)
	}
	fin := ofType[*TurnFinished](f.rec)
	if len(fin) != 1 || fin[0].PendingSteer != "also mention tests" {
		t.Fatalf("turn.finished: %+v", fin)
	}
}

func TestQueueRunsLater(t *testing.T) {
	f := newFixture(t, nil)
	f.agent.Queue("second question")
	if next, ok := f.agent.NextQueued(); !ok || next != "second question" {
		t.Fatalf("queue: %q %v", next, ok)
	}
	if _, ok := f.agent.NextQueued(); ok {
		t.Fatal("queue not drained")
	}
}

func TestBudget(t *testing.T) {
	b := NewBudget(2)
	if first, second, third := b.Consume(), b.Consume(), b.Consume(); !first || !second || third {
		t.Fatal("consume past max")
	}
	b.Refund()
	if b.Used() != 1 || b.Remaining() != 1 || b.Refunds() != 1 {
		t.Fatalf("after refund: used %d remaining %d", b.Used(), b.Remaining())
	}
	done := make(chan bool)
	for i := 0; i < 8; i++ {
		go func() { b.Refund(); done <- b.Consume() }()
	}
	for i := 0; i < 8; i++ {
		<-done
	}
	if b.Used() > b.Max() || b.Used() < 0 {
		t.Fatalf("budget broken under concurrency: %d", b.Used())
	}
}
