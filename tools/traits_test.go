package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// lookupTool and stampTool are tools talaria does not have, declared in
// this one place: their traits are all the planner, the approver, the
// guardrails and the checkpoints need.
type lookupTool struct{}

func (lookupTool) Name() string            { return "lookup" }
func (lookupTool) Description() string     { return "look a word up" }
func (lookupTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (lookupTool) Run(context.Context, *Env, json.RawMessage) Result {
	return Result{Output: "a word"}
}
func (lookupTool) Traits() Traits {
	return Traits{ReadOnly: true, ParallelSafe: true, Idempotent: true}
}

// stampTool writes the file named by "file".
type stampTool struct{}

func (stampTool) Name() string            { return "stamp" }
func (stampTool) Description() string     { return "stamp a file" }
func (stampTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (stampTool) Run(context.Context, *Env, json.RawMessage) Result {
	return Result{Output: "stamped"}
}
func (stampTool) Traits() Traits {
	return Traits{Writes: true, ResetsProgress: true, Paths: func(raw json.RawMessage) ([]string, error) {
		var a struct {
			File string `json:"file"`
		}
		if err := decodeArgs(raw, &a); err != nil {
			return nil, err
		}
		if a.File == "" {
			return nil, errors.New(`argument "file" is required`)
		}
		return []string{a.File}, nil
	}}
}

// TestNewToolIsOneFile registers two new tools and sees every part treat
// them by their traits.
func TestNewToolIsOneFile(t *testing.T) {
	dir := t.TempDir()
	reg := NewRegistry(append(Builtins(), lookupTool{}, stampTool{})...)

	// Planner: lookup runs beside anything; stamp is a path-scoped writer.
	calls := []BatchCall{
		{ID: "1", Name: "lookup", Arguments: `{}`},
		{ID: "2", Name: "read_file", Arguments: `{"path":"a.txt"}`},
		{ID: "3", Name: "stamp", Arguments: `{"file":"b.txt"}`},
		{ID: "4", Name: "lookup", Arguments: `{"w":"x"}`},
		{ID: "5", Name: "stamp", Arguments: `{"file":"a.txt"}`},
		{ID: "6", Name: "stamp", Arguments: `{}`},
	}
	if got := planString(PlanBatch(calls, dir, reg.Traits)); got != "P[0 1 2 3] S[4 5]" {
		t.Errorf("plan = %s", got)
	}

	// Approver: lookup runs in every mode without asking; stamp is an
	// edit (auto-edit allows it inside the working directory only; the
	// read-only mode refuses it); stamp's own argument errors refuse it.
	asked := 0
	a := NewApprover(ApprovalReadOnly, func(context.Context, ApprovalRequest) (ApprovalDecision, error) {
		asked++
		return ApprovalDecision{Allow: true}, nil
	})
	a.Tools, a.Cwd = reg, dir
	check := func(mode ApprovalMode, name, args string) bool {
		a.SetMode(mode)
		ok, _ := a.Check(context.Background(), name, args)
		return ok
	}
	if !check(ApprovalReadOnly, "lookup", `{}`) || !check(ApprovalAsk, "lookup", `{}`) || asked != 0 {
		t.Errorf("lookup is read-only: asked %d", asked)
	}
	if check(ApprovalReadOnly, "stamp", `{"file":"b.txt"}`) {
		t.Error("read-only mode ran stamp")
	}
	if !check(ApprovalAutoEdit, "stamp", `{"file":"b.txt"}`) || asked != 0 {
		t.Errorf("auto-edit did not allow an edit inside cwd (asked %d)", asked)
	}
	if !check(ApprovalAutoEdit, "stamp", `{"file":"/elsewhere/b.txt"}`) || asked != 1 {
		t.Errorf("an edit outside cwd must be asked for (asked %d)", asked)
	}
	a.SetMode(ApprovalYolo)
	if ok, denial := a.Check(context.Background(), "stamp", `{"File":"b.txt"}`); ok || !strings.Contains(denial.Output, `"File"`) {
		t.Errorf("stamp's own decoding was not applied: %v %q", ok, denial.Output)
	}

	// Guardrails: lookup's unchanged results are watched; stamp's success
	// is progress.
	g := NewGuardrails(DefaultGuardrailConfig())
	g.SetTraits(reg.Traits)
	g.AfterCall("lookup", `{}`, "a word", false)
	if d := g.AfterCall("lookup", `{}`, "a word", false); d.Code != CodeNoProgressWarning {
		t.Errorf("lookup repeat: %+v", d)
	}
	g.AfterCall("terminal", `{"command":"make"}`, "Error", true)
	g.AfterCall("terminal", `{"command":"make"}`, "Error", true)
	g.AfterCall("stamp", `{"file":"b.txt"}`, "stamped", false)
	if d := g.AfterCall("terminal", `{"command":"make"}`, "Error", true); d.Count != 1 {
		t.Errorf("stamp's success is progress: %+v", d)
	}

	// Checkpoints: only stamp may change files.
	if reg.ChangesFiles("lookup") || !reg.ChangesFiles("stamp") || !reg.ChangesFiles("no_such_tool") {
		t.Error("ChangesFiles")
	}
}

// TestBuiltinTraitsAreConsistent: the traits of the built-in tools agree
// with what the parts need of them.
func TestBuiltinTraitsAreConsistent(t *testing.T) {
	for _, tl := range append(Builtins(), ExecuteCodeTool{}) {
		tr := tl.Traits()
		if tr.Writes && tr.Paths == nil {
			t.Errorf("%s writes but names no paths", tl.Name())
		}
		if tr.Barrier && tr.ParallelSafe {
			t.Errorf("%s is both a barrier and parallel-safe", tl.Name())
		}
		if tr.ReadOnly && (tr.Writes || tr.ResetsProgress) {
			t.Errorf("%s is read-only but changes things", tl.Name())
		}
		if got, ok := BuiltinTraits(tl.Name()); !ok || got.ReadOnly != tr.ReadOnly {
			t.Errorf("BuiltinTraits(%s)", tl.Name())
		}
	}
	// issue 26: web_fetch and diagnostics run side by side.
	calls := []BatchCall{
		{ID: "1", Name: "web_fetch", Arguments: `{"url":"https://example.com"}`},
		{ID: "2", Name: "diagnostics", Arguments: `{}`},
		{ID: "3", Name: "web_fetch", Arguments: `{"url":"https://example.org"}`},
	}
	if got := planString(PlanBatch(calls, t.TempDir(), BuiltinTraits)); got != "P[0 1 2]" {
		t.Errorf("plan = %s", got)
	}
}
