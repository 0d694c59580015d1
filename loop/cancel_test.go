package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	pt "talaria/providers/providertest"
	"talaria/tools"
)

// slowTool is a parallel-safe tool that prints a line and then runs until
// its context ends or release is closed.
type slowTool struct{ release chan struct{} }

func (slowTool) Name() string         { return "slow" }
func (slowTool) Traits() tools.Traits { return tools.Traits{ReadOnly: true, ParallelSafe: true} }
func (slowTool) Description() string  { return "waits" }
func (slowTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)
}
func (s slowTool) Run(ctx context.Context, _ *tools.Env, raw json.RawMessage) tools.Result {
	var a struct{ N int }
	_ = json.Unmarshal(raw, &a)
	fmt.Fprintf(tools.Output(ctx), "slow %d working\n", a.N)
	select {
	case <-ctx.Done():
		return tools.Result{Output: fmt.Sprintf("slow %d working\n[cancelled]", a.N), IsError: true}
	case <-s.release:
		return tools.Result{Output: fmt.Sprintf("slow %d done", a.N)}
	}
}

func TestCancelCallStopsOnlyThatCall(t *testing.T) {
	release := make(chan struct{})
	f := newFixture(t, func(o *Options) { o.Tools = tools.NewRegistry(slowTool{release}) })
	f.srv.Push(pt.ToolCalls(
		pt.Call{ID: "c1", Name: "slow", Args: `{"n":1}`},
		pt.Call{ID: "c2", Name: "slow", Args: `{"n":2}`},
		pt.Call{ID: "c3", Name: "slow", Args: `{"n":3}`},
	), pt.Text("two of three finished"))
	done := f.runAsync("go")
	// Wait until all three have printed: they all run.
	printed := map[string]bool{}
	for len(printed) < 3 {
		ev := f.rec.waitFor(t, TypeToolOutput).(*ToolOutput)
		printed[ev.ID] = true
	}
	if f.agent.CancelCall("nope") {
		t.Fatal("CancelCall accepted an unknown id")
	}
	if !f.agent.CancelCall("c2") {
		t.Fatalf("CancelCall(c2) refused; running: %v", f.agent.RunningCalls())
	}
	c := f.rec.waitFor(t, TypeToolCompleted).(*ToolCompleted)
	if c.ID != "c2" || !c.Cancelled || c.OK {
		t.Fatalf("first completion: %+v", c)
	}
	if !strings.Contains(c.Output, "The user stopped this slow call") || !strings.Contains(c.Output, "slow 2 working") {
		t.Fatalf("receipt: %q", c.Output)
	}
	close(release)
	res := await(t, done)
	if !res.Completed || res.FinalResponse != "two of three finished" {
		t.Fatalf("turn did not continue: %+v", res)
	}
	for _, c := range ofType[*ToolCompleted](f.rec) {
		if c.ID != "c2" && (c.Cancelled || !c.OK) {
			t.Fatalf("another call was hit: %+v", c)
		}
	}
	tm := messages(t, f.srv, 1)
	var receipt string
	for _, m := range tm {
		if m["tool_call_id"] == "c2" {
			receipt, _ = m["content"].(string)
		}
	}
	if !strings.Contains(receipt, "stopped") {
		t.Fatalf("the model did not get the receipt: %v", tm)
	}
	if f.agent.CancelCall("c1") {
		t.Fatal("CancelCall accepted a finished call")
	}
}

func TestOutputEventsPrecedeCompletion(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Push(pt.ToolCalls(pt.Call{ID: "t1", Name: "terminal", Args: `{"command":"for i in 1 2 3; do echo line$i; done; printf tail"}`}), pt.Text("ok"))
	f.run(t, "go")
	var got strings.Builder
	completed := false
	for _, e := range f.rec.all() {
		switch ev := e.(type) {
		case *ToolOutput:
			if completed {
				t.Fatal("tool.output after tool.completed")
			}
			got.WriteString(ev.Text)
		case *ToolCompleted:
			completed = true
		}
	}
	if got.String() != "line1\nline2\nline3\ntail" {
		t.Fatalf("streamed %q", got.String())
	}
}
