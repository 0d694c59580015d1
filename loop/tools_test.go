package loop

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	pt "talaria/providers/providertest"
	"talaria/tools"
)

func TestReadsRunAsOneParallelSegment(t *testing.T) {
	f := newFixture(t, nil)
	for _, n := range []string{"a.txt", "b.txt"} {
		_ = os.WriteFile(filepath.Join(f.dir, n), []byte(n), 0o644)
	}
	f.srv.Push(pt.ToolCalls(
		pt.Call{ID: "r1", Name: "read_file", Args: `{"path":"a.txt"}`},
		pt.Call{ID: "r2", Name: "read_file", Args: `{"path":"b.txt"}`},
		pt.Call{ID: "w1", Name: "write_file", Args: `{"path":"a.txt","content":"new"}`},
	), pt.Text("ok"))
	f.run(t, "go")
	plans := ofType[*ToolsPlanned](f.rec)
	if len(plans) != 1 || len(plans[0].Segments) != 2 {
		t.Fatalf("plan: %+v", plans)
	}
	seg := plans[0].Segments
	if seg[0].Mode != "parallel" || len(seg[0].Calls) != 2 || seg[1].Mode != "sequential" || seg[1].Calls[0].ID != "w1" {
		t.Fatalf("segments: %+v", seg)
	}
	for _, s := range ofType[*ToolStarted](f.rec) {
		if (s.ID == "w1") != (s.Segment == 1) {
			t.Fatalf("tool.started segment index: %+v", s)
		}
	}
}

func TestGuardrailWarnsThenHalts(t *testing.T) {
	cfg := tools.DefaultGuardrailConfig()
	cfg.HardStopEnabled = true
	f := newFixture(t, func(o *Options) { o.Guardrails = &cfg; o.MaxIterations = 20 })
	for i := 0; i < 10; i++ {
		f.srv.Push(pt.ToolCalls(pt.Call{Name: "read_file", Args: `{"path":"missing.txt"}`}))
	}
	res := f.run(t, "read it")
	if res.ExitReason.Kind != ExitGuardrailHalt || res.Completed || res.FinalResponse == "" {
		t.Fatalf("result: %+v", res)
	}
	g := ofType[*Guardrail](f.rec)
	if len(g) < 2 || g[0].Action != "warn" || (g[len(g)-1].Action != "block" && g[len(g)-1].Action != "halt") {
		t.Fatalf("guardrail events: %+v", g)
	}
	msgs := messages(t, f.srv, 2) // the second failure's result carries the warning
	if last := msgs[len(msgs)-1]["content"].(string); !strings.Contains(last, "Tool loop warning") {
		t.Fatalf("warning not appended to the tool result: %q", last)
	}
	h := f.agent.History()
	if h[len(h)-1].Role != "assistant" {
		t.Fatal("halt must end with an assistant message")
	}
}
