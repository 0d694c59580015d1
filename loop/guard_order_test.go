package loop

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	pt "talaria/providers/providertest"
	"talaria/tools"
)

// TestGuardrailWarningInCallOrder (issue 24 defect 3): in a parallel batch
// of reads where r3 repeats r1, the "returned the same result 2 times"
// warning belongs to the repeat, r3, even when r3 finishes first. It used
// to land on whichever finished second (here r1).
func TestGuardrailWarningInCallOrder(t *testing.T) {
	r3done := make(chan struct{})
	var once sync.Once
	f := newFixture(t, func(o *Options) {
		rec := o.Sink
		o.Sink = func(e Event) {
			rec(e)
			if c, ok := e.(*ToolCompleted); ok && c.ID == "r3" {
				once.Do(func() { close(r3done) })
			}
		}
		// r1 starts only once r3 has finished.
		o.Hooks.PreTool = func(ctx context.Context, c tools.BatchCall) tools.HookVerdict {
			if c.ID == "r1" {
				select {
				case <-r3done:
				case <-ctx.Done():
				case <-time.After(20 * time.Second):
					t.Error("r3 never finished")
				}
			}
			return tools.HookVerdict{}
		}
	})
	for _, n := range []string{"a.txt", "b.txt"} {
		if err := os.WriteFile(filepath.Join(f.dir, n), []byte(n+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f.srv.Push(pt.ToolCalls(
		pt.Call{ID: "r1", Name: "read_file", Args: `{"path":"a.txt"}`},
		pt.Call{ID: "r2", Name: "read_file", Args: `{"path":"b.txt"}`},
		pt.Call{ID: "r3", Name: "read_file", Args: `{"path":"a.txt"}`},
	), pt.Text("done"))
	res := f.run(t, "read")
	if !res.Completed {
		t.Fatalf("result: %+v", res)
	}
	plan := ofType[*ToolsPlanned](f.rec)
	if len(plan) != 1 || len(plan[0].Segments) != 1 || plan[0].Segments[0].Mode != "parallel" {
		t.Fatalf("the reads must run as one parallel segment: %+v", plan)
	}
	var order []string
	for _, c := range ofType[*ToolCompleted](f.rec) {
		order = append(order, c.ID)
	}
	if strings.Join(order, " ") == "r1 r2 r3" {
		t.Fatalf("r3 did not finish before r1: %v", order)
	}
	g := ofType[*Guardrail](f.rec)
	if len(g) != 1 || g[0].ID != "r3" || g[0].Code != tools.CodeNoProgressWarning || g[0].Count != 2 {
		t.Fatalf("guardrail events: %+v", g)
	}
	for _, m := range messages(t, f.srv, 1) {
		content, _ := m["content"].(string)
		warned := strings.Contains(content, "Tool loop warning")
		switch m["tool_call_id"] {
		case "r3":
			if !warned {
				t.Errorf("the repeat carries no warning: %q", content)
			}
		case "r1", "r2":
			if warned {
				t.Errorf("%v carries the warning: %q", m["tool_call_id"], content)
			}
		}
	}
}

// TestSixIdenticalFailuresStopWithDefaults (issue 24 defect 12): with the
// TUI's defaults (hard stops off), the sixth identical failing call is not
// run again; the model reads the refusal and the turn goes on.
func TestSixIdenticalFailuresStopWithDefaults(t *testing.T) {
	cfg := tools.DefaultGuardrailConfig()
	f := newFixture(t, func(o *Options) { o.Guardrails = &cfg; o.MaxIterations = 20 })
	for i := 1; i <= 6; i++ {
		f.srv.Push(pt.ToolCalls(pt.Call{ID: fmt.Sprint("c", i), Name: "read_file", Args: `{"path":"missing.txt"}`}))
	}
	f.srv.Push(pt.Text("I will stop guessing"))
	res := f.run(t, "read it")
	if !res.Completed || res.FinalResponse != "I will stop guessing" {
		t.Fatalf("result: %+v", res)
	}
	var blocked []string
	for _, g := range ofType[*Guardrail](f.rec) {
		if g.Action == tools.GuardBlock {
			blocked = append(blocked, g.ID)
		}
	}
	if strings.Join(blocked, " ") != "c6" {
		t.Fatalf("blocked calls: %v", blocked)
	}
	last := messages(t, f.srv, 6)
	if c, _ := last[len(last)-1]["content"].(string); !strings.Contains(c, tools.CodeExactFailureBlock) || !strings.Contains(c, "not run again") {
		t.Fatalf("the sixth result: %q", c)
	}
}
