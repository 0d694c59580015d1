package tools

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
)

func hardConfig() GuardrailConfig {
	c := DefaultGuardrailConfig()
	c.HardStopEnabled = true
	return c
}

// expect checks a decision's action and code (code "" for a plain allow).
func expect(t *testing.T, step string, d GuardrailDecision, action, code string, count int) {
	t.Helper()
	if d.Action != action || d.Code != code || (count >= 0 && d.Count != count) {
		t.Fatalf("%s: got %s/%s count=%d (%q), want %s/%s count=%d", step, d.Action, d.Code, d.Count, d.Message, action, code, count)
	}
}

func TestDefaultGuardrailConfig(t *testing.T) {
	c := DefaultGuardrailConfig()
	if !c.WarningsEnabled || c.HardStopEnabled || c.WarnExactFailure != 2 || c.WarnSameToolFailure != 3 || c.WarnNoProgress != 2 ||
		c.HardExactFailure != 5 || c.HardSameToolFailure != 8 || c.HardNoProgress != 5 || c.MaxSubagents != 50 {
		t.Errorf("defaults: %+v", c)
	}
	g := NewGuardrails(GuardrailConfig{WarnExactFailure: -1, MaxSubagents: -3})
	if got := g.Config(); got.WarnExactFailure != 2 || got.HardSameToolFailure != 8 || got.MaxSubagents != 50 {
		t.Errorf("normalized: %+v", got)
	}
}

func TestGuardExactFailureWarnThenBlock(t *testing.T) {
	g := NewGuardrails(hardConfig())
	args := `{"path":"missing.go"}`
	for i := 1; i <= 5; i++ {
		expect(t, fmt.Sprint("before ", i), g.BeforeCall("read_file", args), GuardAllow, "", -1)
		d := g.AfterCall("read_file", args, "Error: no such file", true)
		if i == 1 {
			expect(t, "after 1", d, GuardAllow, "", 1)
		} else {
			expect(t, fmt.Sprint("after ", i), d, GuardWarn, CodeExactFailureWarning, i)
		}
	}
	d := g.BeforeCall("read_file", `{ "path" : "missing.go" }`) // same canonical args
	expect(t, "before 6", d, GuardBlock, CodeExactFailureBlock, 5)
	if d.AllowsExecution() || !d.ShouldHalt() || !strings.Contains(d.Message, "5 times") {
		t.Errorf("block decision: %+v", d)
	}
	expect(t, "other args still run", g.BeforeCall("read_file", `{"path":"other.go"}`), GuardAllow, "", -1)
	g.ResetForTurn()
	expect(t, "after reset", g.BeforeCall("read_file", args), GuardAllow, "", -1)
}

func TestGuardSameToolFailures(t *testing.T) {
	g := NewGuardrails(hardConfig())
	for i := 1; i <= 8; i++ {
		d := g.AfterCall("patch", fmt.Sprintf(`{"path":"f%d"}`, i), "Error: old_string not found", true)
		switch {
		case i < 3:
			expect(t, fmt.Sprint("failure ", i), d, GuardAllow, "", 1)
		case i < 8:
			expect(t, fmt.Sprint("failure ", i), d, GuardWarn, CodeSameToolFailureWarn, i)
			if !strings.Contains(d.Message, "read_file") {
				t.Errorf("patch hint missing: %q", d.Message)
			}
		default:
			expect(t, "failure 8", d, GuardHalt, CodeSameToolFailureHalt, 8)
			if !d.ShouldHalt() {
				t.Errorf("halt: %+v", d)
			}
		}
	}
	// A success of the same tool clears its count.
	g.ResetForTurn()
	g.AfterCall("patch", `{"path":"a"}`, "Error", true)
	g.AfterCall("patch", `{"path":"b"}`, "Error", true)
	g.AfterCall("patch", `{"path":"c"}`, "ok", false)
	expect(t, "after success", g.AfterCall("patch", `{"path":"d"}`, "Error", true), GuardAllow, "", 1)
}

func TestGuardFailureTolerantNeverHalts(t *testing.T) {
	g := NewGuardrails(hardConfig())
	var last GuardrailDecision
	for i := 1; i <= 20; i++ {
		last = g.AfterCall("terminal", fmt.Sprintf(`{"command":"go test ./%d"}`, i), "FAIL\nexit code: 1", true)
		if last.Action == GuardHalt {
			t.Fatalf("terminal halted at failure %d", i)
		}
	}
	expect(t, "terminal warns", last, GuardWarn, CodeSameToolFailureWarn, 20)
	if !strings.Contains(last.Message, "pwd && ls -la") {
		t.Errorf("terminal hint: %q", last.Message)
	}
}

func TestGuardIdempotentNoProgress(t *testing.T) {
	g := NewGuardrails(hardConfig())
	args := `{"pattern":"TODO"}`
	for i := 1; i <= 5; i++ {
		expect(t, fmt.Sprint("before ", i), g.BeforeCall("search_files", args), GuardAllow, "", -1)
		d := g.AfterCall("search_files", args, "a.go:1: TODO", false)
		if i == 1 {
			expect(t, "after 1", d, GuardAllow, "", 1)
		} else {
			expect(t, fmt.Sprint("after ", i), d, GuardWarn, CodeNoProgressWarning, i)
		}
	}
	expect(t, "before 6", g.BeforeCall("search_files", args), GuardBlock, CodeNoProgressBlock, 5)
	// A changed result starts over.
	expect(t, "changed", g.AfterCall("search_files", args, "a.go:2: TODO", false), GuardAllow, "", 1)
	expect(t, "unblocked", g.BeforeCall("search_files", args), GuardAllow, "", -1)
	// JSON results hash canonically.
	g.AfterCall("session_search", `{"query":"q"}`, `{"a":1,"b":[1,2]}`, false)
	expect(t, "canonical JSON result", g.AfterCall("session_search", `{"query":"q"}`, `{"b":[1, 2], "a":1}`, false), GuardWarn, CodeNoProgressWarning, 2)
	// Mutating tools never count as no progress.
	for range 6 {
		expect(t, "write_file", g.AfterCall("write_file", `{"path":"a"}`, "wrote", false), GuardAllow, "", 0)
	}
	// Tools are judged by their traits: an MCP tool its server marks
	// read-only and idempotent is watched, another is not.
	g.SetTraits(traitsWith(map[string]Traits{
		"files__read_text_file": {ReadOnly: true, Claimed: true, Idempotent: true},
		"files__list":           {ReadOnly: true, Claimed: true},
	}))
	g.AfterCall("files__read_text_file", `{"path":"a"}`, "x", false)
	expect(t, "mcp reader", g.AfterCall("files__read_text_file", `{"path":"a"}`, "x", false), GuardWarn, CodeNoProgressWarning, 2)
	g.AfterCall("files__list", `{}`, "x", false)
	expect(t, "not idempotent", g.AfterCall("files__list", `{}`, "x", false), GuardAllow, "", 0)
	expect(t, "other mcp tool", g.AfterCall("files__frob", `{}`, "x", false), GuardAllow, "", 0)
}

func TestGuardProgressReset(t *testing.T) {
	g := NewGuardrails(hardConfig())
	args := `{"command":"make"}`
	for range 5 {
		g.AfterCall("build_tool", args, "Error: build failed", true)
	}
	expect(t, "blocked", g.BeforeCall("build_tool", args), GuardBlock, CodeExactFailureBlock, 5)
	// A read-only success is no progress.
	g.AfterCall("read_file", `{"path":"Makefile"}`, "all:", false)
	expect(t, "still blocked", g.BeforeCall("build_tool", args), GuardBlock, CodeExactFailureBlock, 5)
	// A landed write is.
	g.AfterCall("write_file", `{"path":"Makefile","content":"x"}`, "wrote", false)
	expect(t, "retry allowed", g.BeforeCall("build_tool", args), GuardAllow, "", -1)
	expect(t, "count restarts", g.AfterCall("build_tool", args, "Error", true), GuardAllow, "", 1)
	// Same-tool counts are cleared by progress too.
	g.ResetForTurn()
	g.AfterCall("read_file", `{"path":"a"}`, "Error", true)
	g.AfterCall("read_file", `{"path":"b"}`, "Error", true)
	g.AfterCall("todo", `{"todos":[]}`, "[]", false)
	expect(t, "same-tool reset", g.AfterCall("read_file", `{"path":"c"}`, "Error", true), GuardAllow, "", 1)
}

func TestGuardWarningsDisabled(t *testing.T) {
	c := hardConfig()
	c.WarningsEnabled = false
	g := NewGuardrails(c)
	for i := 1; i <= 7; i++ {
		expect(t, fmt.Sprint("failure ", i), g.AfterCall("read_file", `{"path":"x"}`, "Error", true), GuardAllow, "", i)
		expect(t, fmt.Sprint("same result ", i), g.AfterCall("read_file", `{"path":"y"}`, "same", false), GuardAllow, "", i)
	}
	expect(t, "block still applies", g.BeforeCall("read_file", `{"path":"x"}`), GuardBlock, CodeExactFailureBlock, 7)
}

// TestGuardHardStopDisabledStillRefusesExactRepeats (issue 24 defect
// 12): with the defaults of the TUI (hard stops off), six identical
// failing calls used to run six times. The sixth is now refused (it would
// fail the same way) without ending the turn; the other hard stops stay
// off.
func TestGuardHardStopDisabledStillRefusesExactRepeats(t *testing.T) {
	g := NewGuardrails(DefaultGuardrailConfig())
	args := `{"path":"x"}`
	for i := 1; i <= 5; i++ {
		if d := g.BeforeCall("read_file", args); d.Action != GuardAllow {
			t.Fatalf("before %d: %+v", i, d)
		}
		if d := g.AfterCall("read_file", args, "Error", true); d.ShouldHalt() {
			t.Fatalf("after %d: %+v", i, d)
		}
		if o := g.Observe(fmt.Sprint(i), "read_file", args, "Error", true); o.Decision.ShouldHalt() {
			t.Fatalf("observe %d: %+v", i, o)
		}
	}
	d := g.BeforeCall("read_file", args)
	expect(t, "sixth refused", d, GuardBlock, CodeExactFailureBlock, 5)
	if d.AllowsExecution() || d.ShouldHalt() || !d.GoesOn {
		t.Fatalf("the refusal must not end the turn with hard stops off: %+v", d)
	}
	// Other arguments still run; many failures of one tool never halt.
	for i := 1; i <= 30; i++ {
		a := fmt.Sprintf(`{"path":"y%d"}`, i)
		if d := g.BeforeCall("read_file", a); d.Action != GuardAllow {
			t.Fatalf("before y%d: %+v", i, d)
		}
		if d := g.AfterCall("read_file", a, "Error", true); d.ShouldHalt() {
			t.Fatalf("after y%d: %+v", i, d)
		}
	}
	for i := 0; i < 30; i++ {
		o := g.Observe(fmt.Sprint("c", i), []string{"read_file", "search_files"}[i%2], args, "x", false)
		if o.Decision.ShouldHalt() {
			t.Fatalf("cycle halted with hard stops off: %+v", o)
		}
	}
	// With hard stops on the same refusal ends the turn.
	h := NewGuardrails(hardConfig())
	for range 5 {
		h.AfterCall("read_file", args, "Error", true)
	}
	if d := h.BeforeCall("read_file", args); !d.ShouldHalt() || d.GoesOn {
		t.Fatalf("hard stop: %+v", d)
	}
}

func TestGuardLoopCaps(t *testing.T) {
	c := DefaultGuardrailConfig() // hard stops off: caps apply anyway
	c.MaxSubagents = 3
	g := NewGuardrails(c)
	expect(t, "two tasks", g.BeforeCall("delegate_task", `{"tasks":[{"goal":"a"},{"goal":"b"}]}`), GuardAllow, "", -1)
	g.AfterCall("delegate_task", `{"tasks":[{"goal":"a"},{"goal":"b"}]}`, "done", false)
	d := g.BeforeCall("delegate_task", `{"tasks":[{"goal":"c"},{"goal":"d"}]}`)
	expect(t, "over the cap", d, GuardBlock, CodeLoopSubagentCap, 2)
	if !strings.Contains(d.Message, "Not started: d") || strings.Contains(d.Message, "c;") {
		t.Errorf("rejected goals: %q", d.Message)
	}
	expect(t, "control action", g.BeforeCall("delegate_task", `{"action":"list"}`), GuardAllow, "", -1)
	// A failed spawn is given back.
	expect(t, "one more", g.BeforeCall("delegate_task", `{"goal":"e"}`), GuardAllow, "", -1)
	g.AfterCall("delegate_task", `{"goal":"e"}`, "Error: no model", true)
	expect(t, "refunded", g.BeforeCall("delegate_task", `{"goal":"f"}`), GuardAllow, "", -1)
	expect(t, "full", g.BeforeCall("delegate_task", `{"goal":"g"}`), GuardBlock, CodeLoopSubagentCap, 3)
	g.ResetForTurn()
	expect(t, "new turn", g.BeforeCall("delegate_task", `{"goal":"g"}`), GuardAllow, "", -1)
}

func TestGuardStreak(t *testing.T) {
	g := NewGuardrails(hardConfig())
	long := strings.Repeat("x", 600)
	for i := 1; i <= 6; i++ {
		o := g.Observe(fmt.Sprint("id", i), "read_file", `{"path":"big"}`, long, false)
		switch {
		case i < 3:
			if o.Kind != "" || o.Notice != "" || o.Stub != "" {
				t.Fatalf("call %d: %+v", i, o)
			}
		default:
			if o.Kind != StallStreak || o.Count != i || !strings.Contains(o.Notice, fmt.Sprintf("call %d in a row", i)) {
				t.Fatalf("call %d: %+v", i, o)
			}
			if !strings.Contains(o.Stub, "id1") || !strings.Contains(o.Stub, `{"path":"big"}`) {
				t.Fatalf("call %d stub: %q", i, o.Stub)
			}
		}
		if want := i == 5; o.Decision.Action == GuardHalt != want {
			t.Fatalf("call %d halt=%v: %+v", i, !want, o.Decision)
		}
	}
	// A short or failed result gets no stub; a new result breaks the streak.
	g.ResetForTurn()
	for i := 1; i <= 3; i++ {
		if o := g.Observe("s", "read_file", `{"path":"a"}`, "short", false); i == 3 && (o.Kind != StallStreak || o.Stub != "") {
			t.Fatalf("short: %+v", o)
		}
	}
	if o := g.Observe("s", "read_file", `{"path":"a"}`, "changed", false); o.Kind != "" {
		t.Fatalf("changed result still a streak: %+v", o)
	}
	// Pollers are exempt.
	for i := 1; i <= 8; i++ {
		if o := g.Observe("p", "process", `{"action":"poll","id":"1"}`, "running", false); o.Kind != "" || o.Decision.ShouldHalt() {
			t.Fatalf("poller %d: %+v", i, o)
		}
	}
}

func TestGuardCycleABAB(t *testing.T) {
	g := NewGuardrails(hardConfig())
	seq := []struct{ name, args, out string }{
		{"read_file", `{"path":"a"}`, "A"},
		{"search_files", `{"pattern":"b"}`, "B"},
	}
	halts := 0
	for i := 0; i < 14; i++ {
		c := seq[i%2]
		o := g.Observe(fmt.Sprint(i), c.name, c.args, c.out, false)
		laps := (i + 1) / 2
		switch {
		case laps < 3:
			if o.Kind != "" {
				t.Fatalf("call %d: early %+v", i, o)
			}
		default:
			if o.Kind != StallCycle || o.Period != 2 || o.Count < 3 || !strings.Contains(o.Notice, "cycle of 2 tool calls") {
				t.Fatalf("call %d: %+v", i, o)
			}
		}
		if o.Decision.Action == GuardHalt {
			halts++
			if i != 9 || o.Decision.Code != CodeIdenticalCycleHalt || !strings.Contains(o.Decision.Message, "cycle of 2") {
				t.Fatalf("halt at call %d: %+v", i, o.Decision)
			}
		}
	}
	if halts != 1 {
		t.Errorf("%d halts, want exactly 1", halts)
	}
	// Period 3, and a cycle broken by a changed result.
	g.ResetForTurn()
	var last Observation
	for i := 0; i < 9; i++ {
		last = g.Observe("x", []string{"a", "b", "c"}[i%3], "{}", "r", false)
	}
	if last.Kind != StallCycle || last.Period != 3 || last.Count != 3 {
		t.Errorf("period 3: %+v", last)
	}
	if o := g.Observe("x", "a", "{}", "new result", false); o.Kind != "" {
		t.Errorf("changed result still cycles: %+v", o)
	}
	// Poller-only cycles are exempt.
	g.ResetForTurn()
	g.SetTraits(traitsWith(map[string]Traits{"job_poll": {Poller: true}}))
	for i := 0; i < 12; i++ {
		if o := g.Observe("x", []string{"process", "job_poll"}[i%2], "{}", "r", false); o.Kind != "" {
			t.Fatalf("poller cycle: %+v", o)
		}
	}
}

func TestGuardSignaturesAndHashes(t *testing.T) {
	if ArgsHash(`{"b":1,"a":{"y":"é","x":[1,2.50]}}`) != ArgsHash(`{ "a" : {"x":[1, 2.50], "y":"é"}, "b":1 }`) {
		t.Error("canonical args hash must ignore key order and spacing")
	}
	if ArgsHash(`{"a":2.5}`) != ArgsHash(`{"a":2.50}`) || ArgsHash(`{"a":1e2}`) != ArgsHash(`{"a":100.0}`) {
		t.Error("floats are hashed by value")
	}
	if ArgsHash(`{"a":1}`) == ArgsHash(`{"a":1.0}`) || ArgsHash(`{"n":12345678901234567891}`) == ArgsHash(`{"n":12345678901234567892}`) {
		t.Error("integers are hashed exactly and apart from floats")
	}
	if ArgsHash("") != ArgsHash("{}") || ArgsHash("{bad") == ArgsHash("{bad2") {
		t.Error("blank and invalid args")
	}
	sig := CallSignature("read_file", `{"path":"/secret/token"}`)
	if !strings.HasPrefix(sig, "read_file:") || strings.Contains(sig, "secret") || len(sig) != len("read_file:")+64 {
		t.Errorf("signature %q", sig)
	}
	if ResultHash(`{"a":1, "b":2}`) != ResultHash(`{"b":2,"a":1}`) || ResultHash("plain") == ResultHash("plain ") {
		t.Error("result hash")
	}
}

func TestGuardDecisionRendering(t *testing.T) {
	w := GuardrailDecision{Action: GuardWarn, Code: CodeExactFailureWarning, Tool: "read_file", Count: 2, Message: "m"}
	if got := w.Annotation(); got != "\n\n[Tool loop warning: repeated_exact_failure_warning; count=2; m]" {
		t.Errorf("warn annotation %q", got)
	}
	h := GuardrailDecision{Action: GuardHalt, Code: CodeSameToolFailureHalt, Count: 8, Message: "stop"}
	if got := h.Annotation(); got != "\n\n[Tool loop hard stop: same_tool_failure_halt; count=8; stop]" {
		t.Errorf("halt annotation %q", got)
	}
	if (GuardrailDecision{Action: GuardAllow}).Annotation() != "" || (GuardrailDecision{Action: GuardBlock}).Annotation() != "" {
		t.Error("allow/block have no annotation")
	}
	b := GuardrailDecision{Action: GuardBlock, Code: CodeExactFailureBlock, Tool: "patch", Count: 5, Message: "Blocked: x", Signature: "patch:ab"}
	r := b.BlockedResult()
	var got struct {
		Error     string
		Guardrail map[string]any
	}
	if err := json.Unmarshal([]byte(r.Output), &got); err != nil || !r.IsError || got.Error != "Blocked: x" ||
		got.Guardrail["code"] != CodeExactFailureBlock || got.Guardrail["count"] != 5.0 || got.Guardrail["tool"] != "patch" {
		t.Errorf("blocked result %q (%v)", r.Output, err)
	}
	if msg := GuardrailHaltResponse(b); !strings.Contains(msg, "patch") || !strings.Contains(msg, CodeExactFailureBlock) || !strings.Contains(msg, "5") {
		t.Errorf("halt response %q", msg)
	}
	if !(GuardrailDecision{}).AllowsExecution() || (GuardrailDecision{}).ShouldHalt() {
		t.Error("zero decision allows")
	}
}

func TestGuardConcurrentUse(t *testing.T) {
	g := NewGuardrails(hardConfig())
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 200 {
				args := fmt.Sprintf(`{"path":"%d"}`, i%5)
				g.BeforeCall("read_file", args)
				g.AfterCall("read_file", args, "Error", w%2 == 0)
				g.Observe("id", "read_file", args, "r", false)
				if i%50 == 0 {
					g.ResetForTurn()
				}
			}
		})
	}
	wg.Wait()
}

// TestStripAnnotationUndoesAnnotation: what Annotation appends, and only
// that, StripAnnotation takes off (replay feeds recorded results back
// without the live run's notes).
func TestStripAnnotationUndoesAnnotation(t *testing.T) {
	out := "line one\n[not a note]"
	for _, a := range []string{GuardWarn, GuardHalt} {
		d := GuardrailDecision{Action: a, Code: "repeated_failure", Count: 3, Message: "stop repeating"}
		if got := StripAnnotation(out + d.Annotation()); got != out {
			t.Errorf("%s: %q", a, got)
		}
	}
	if got := StripAnnotation(out); got != out {
		t.Errorf("output without a note changed: %q", got)
	}
}

// traitsWith looks up the given traits, else the built-in tools'.
func traitsWith(m map[string]Traits) func(string) (Traits, bool) {
	return func(name string) (Traits, bool) {
		if tr, ok := m[name]; ok {
			return tr, true
		}
		return BuiltinTraits(name)
	}
}
