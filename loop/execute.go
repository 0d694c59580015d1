package loop

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"talaria/providers"
	"talaria/tools"
)

// toolSpecs returns the tool list offered to the model (rebuilt per call:
// the registry may change between calls, e.g. when an MCP server reconnects).
func (a *Agent) toolSpecs() []providers.ToolSpec {
	all := a.opts.Tools.All()
	specs := make([]providers.ToolSpec, 0, len(all))
	for _, tl := range all {
		specs = append(specs, providers.ToolSpec{Name: tl.Name(), Description: tl.Description(), Parameters: tl.Schema()})
	}
	return specs
}

// batchRun is the shared state of one tool batch, touched from workers.
type batchRun struct {
	mu    sync.Mutex
	halt  *tools.GuardrailDecision
	saver *resultSaver

	scripts scriptCalls // the running execute_code call, for its inner calls

	denied map[string]bool // calls the approval refused, by id
	ran    map[string]bool // calls that ran to completion (After), by id
}

// finished records that call id ran to completion: its result is the
// guardrails' to judge.
func (b *batchRun) finished(id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ran == nil {
		b.ran = map[string]bool{}
	}
	b.ran[id] = true
}

// didRun reports whether call id ran to completion.
func (b *batchRun) didRun(id string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.ran[id]
}

// deny records that the approval refused call id.
func (b *batchRun) deny(id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.denied == nil {
		b.denied = map[string]bool{}
	}
	b.denied[id] = true
}

// wasDenied reports whether the approval refused call id.
func (b *batchRun) wasDenied(id string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.denied[id]
}

func (b *batchRun) stop(d tools.GuardrailDecision) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.halt == nil {
		b.halt = &d
	}
}

// runTools plans a batch into segments, runs them (parallel segments on
// workers) with the guardrail and approval checks, and appends one result
// per tool_call_id in call order. It reports true when a guardrail ended
// the turn.
func (t *turn) runTools(calls []providers.ToolCall) bool {
	t.toolTurns++
	batch := make([]tools.BatchCall, len(calls))
	for i, c := range calls {
		batch[i] = tools.BatchCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments}
	}
	env := t.a.opts.ToolEnv
	segs := tools.PlanBatch(batch, env.Cwd, t.a.opts.Tools.Traits)
	t.emitPlan(batch, segs)
	t.checkpoint(calls)
	run := &batchRun{}
	exec := tools.Executor{Registry: t.a.opts.Tools, Cancels: &t.a.calls}
	run.saver = t.newResultSaver(calls, batch, run)
	env.CallTool = t.innerCaller(run, &env)
	results := exec.Run(t.ctx, &env, batch, segs, t.hooks(run, ""))
	run.saver.finish(results)
	if onlyExecuteCode(calls) {
		// Programmatic tool calling is a cheap RPC: as in Hermes, it does
		// not eat the budget (its inner calls never count either).
		t.refund("execute_code")
	}
	if run.halt == nil {
		return false
	}
	t.exit = ExitGuardrailHalt.Exit()
	t.final = tools.GuardrailHaltResponse(*run.halt)
	t.append(providers.Message{Role: providers.RoleAssistant, Content: t.final})
	return true
}

func (t *turn) emitPlan(batch []tools.BatchCall, segs []tools.Segment) {
	out := make([]PlannedSegment, len(segs))
	for i, sg := range segs {
		infos := make([]ToolCallInfo, len(sg.Calls))
		for j, idx := range sg.Calls {
			infos[j] = ToolCallInfo{ID: batch[idx].ID, Name: batch[idx].Name, Arguments: batch[idx].Arguments}
		}
		out[i] = PlannedSegment{Mode: sg.Mode(), Calls: infos}
	}
	t.emit(&ToolsPlanned{Segments: out})
}

// emitGuardrail announces a decision about call id ("" when it is about
// no single call).
func (t *turn) emitGuardrail(id string, d tools.GuardrailDecision) {
	t.emit(&Guardrail{ID: id, Action: d.Action, Code: d.Code, Tool: d.Tool, Count: d.Count, Message: d.Message})
}

// guardResult applies the guardrails to the result of call r, in call
// order (the result saver calls it as it appends results, so in a parallel
// batch the repeat, not the first of a pair, gets the warning): AfterCall
// for a call that ran, then the stall guard. It returns the text the model
// reads.
func (t *turn) guardResult(r tools.CallResult, args string, run *batchRun) string {
	out := r.Result.Output
	if r.Cancelled {
		return out
	}
	if run.didRun(r.ID) {
		d := t.a.guard.AfterCall(r.Name, args, out, r.Result.IsError)
		if d.Action == tools.GuardWarn || d.ShouldHalt() {
			out += d.Annotation()
			t.emitGuardrail(r.ID, d)
		}
		if d.ShouldHalt() {
			run.stop(d)
		}
	}
	o := t.a.guard.Observe(r.ID, r.Name, args, out, r.Result.IsError)
	if o.Stub != "" {
		out = o.Stub
	}
	if o.Notice != "" {
		out += o.Notice
	}
	if o.Decision.ShouldHalt() {
		t.emitGuardrail(r.ID, o.Decision)
		run.stop(o.Decision)
	}
	return out
}

// hooks connects the executor to guardrails, approvals and events. They run
// on worker goroutines. parent is the execute_code call whose inner call
// they run ("" for the model's calls): its events carry it, and its result
// goes back to the script, not into the history.
func (t *turn) hooks(run *batchRun, parent string) tools.ExecHooks {
	return tools.ExecHooks{
		Before: func(_ int, c tools.BatchCall) *tools.Result {
			if d := t.a.guard.BeforeCall(c.Name, c.Arguments); !d.AllowsExecution() {
				t.emitGuardrail(c.ID, d)
				if d.ShouldHalt() {
					run.stop(d)
				}
				r := d.BlockedResult()
				return &r
			}
			ctx := t.ctx
			if pre := t.a.opts.Hooks.PreTool; pre != nil {
				v := pre(t.ctx, c)
				if v.Block {
					run.deny(c.ID)
					r := tools.BlockedByHook(c.Name, v.Reason)
					return &r
				}
				ctx = tools.WithHookPermission(ctx, v.Permission)
			}
			if t.a.opts.Approve != nil {
				t0 := t.a.opts.Now()
				ok, denial := t.a.opts.Approve(ctx, c.Name, c.Arguments)
				t.emitApprovalWait(c.ID, c.Name, t0, ok)
				if !ok {
					run.deny(c.ID)
					return &denial
				}
			}
			return nil
		},
		OnStart: func(seg, _ int, c tools.BatchCall) {
			if parent == "" && c.Name == executeCodeName {
				run.scripts.begin(c.ID)
			}
			t.emit(&ToolStarted{ID: c.ID, Name: c.Name, Arguments: c.Arguments, Segment: seg, ParentID: parent})
		},
		After: func(_ int, c tools.BatchCall, r *tools.Result) {
			if parent == "" {
				// The model's own calls are judged in call order, as
				// their results are saved (guardResult).
				run.finished(c.ID)
			} else {
				d := t.a.guard.AfterCall(c.Name, c.Arguments, r.Output, r.IsError)
				if d.Action == tools.GuardWarn || d.ShouldHalt() {
					r.Output += d.Annotation()
					t.emitGuardrail(c.ID, d)
				}
				if d.ShouldHalt() {
					run.stop(d)
				}
			}
			if post := t.a.opts.Hooks.PostTool; post != nil {
				r.Output += tools.HookNote(post(t.ctx, c, *r))
			}
		},
		OnOutput: func(_ int, c tools.BatchCall, text string) {
			t.emit(&ToolOutput{ID: c.ID, Text: text, ParentID: parent})
		},
		OnDone: func(seg int, r tools.CallResult) {
			t.emit(&ToolCompleted{ID: r.ID, Name: r.Name, OK: !r.Result.IsError && !r.Cancelled, Cancelled: r.Cancelled,
				DurationMS: r.Duration.Milliseconds(), Output: truncateOutput(r.Result.Output, 4000), Segment: seg, Diff: r.Diff,
				Denied: run.wasDenied(r.ID), ParentID: parent, Diagnostics: r.Result.Diagnostics})
			if parent != "" {
				return
			}
			if r.Name == executeCodeName {
				run.scripts.end(r.ID)
			}
			run.saver.complete(r)
		},
	}
}

func toolResult(c providers.ToolCall, out string) providers.Message {
	return providers.Message{Role: providers.RoleTool, Content: out, ToolCallID: c.ID, ToolName: c.Name}
}

// truncateOutput caps s at about n bytes, keeping its start and its end
// (where a command's result and exit code are) around a marker.
func truncateOutput(s string, n int) string {
	if len(s) <= n {
		return s
	}
	head, tail := n*2/5, n*3/5
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	from := len(s) - tail
	for from < len(s) && !utf8.RuneStart(s[from]) {
		from++
	}
	return s[:head] + fmt.Sprintf("\n[… %d bytes …]\n", from-head) + s[from:]
}

// normalize makes an assistant message byte-stable for replay: content
// trimmed, tool-call arguments re-serialized with sorted keys (invalid JSON
// is kept as sent so the tool layer can report it).
func normalize(m providers.Message) providers.Message {
	m.Content = strings.TrimSpace(m.Content)
	if len(m.ToolCalls) == 0 {
		m.ToolCalls = nil
		return m
	}
	calls := make([]providers.ToolCall, len(m.ToolCalls))
	for i, c := range m.ToolCalls {
		var v any
		if err := json.Unmarshal([]byte(c.Arguments), &v); err == nil {
			if b, err := providers.MarshalKeepingBytes(v); err == nil {
				c.Arguments = string(b)
			}
		}
		calls[i] = c
	}
	m.ToolCalls = calls
	return m
}

// maxMalformedBatches is how many batches in a row may hold an invalid call
// (unknown tool, arguments that are not a JSON object) before the turn ends.
const maxMalformedBatches = 3

// checkMalformed counts batches with invalid calls; the third in a row ends
// the turn (the calls already got error results the model could read).
func (t *turn) checkMalformed(calls []providers.ToolCall) bool {
	var bad []string
	for _, c := range calls {
		if _, ok := t.a.opts.Tools.Get(c.Name); !ok {
			bad = append(bad, fmt.Sprintf("unknown tool %q", c.Name))
		} else if !isJSONObject(c.Arguments) {
			bad = append(bad, fmt.Sprintf("invalid JSON arguments for %s", c.Name))
		}
	}
	if len(bad) == 0 {
		t.malformed = 0
		return false
	}
	t.malformed++
	if t.malformed < maxMalformedBatches {
		return false
	}
	t.exit = ExitInvalidToolCalls.Exit()
	t.final = fmt.Sprintf("Stopped: the model sent invalid tool calls %d times in a row (last: %s).", t.malformed, strings.Join(bad, "; "))
	return true
}

func isJSONObject(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" {
		return true
	}
	var obj map[string]json.RawMessage
	return json.Unmarshal([]byte(s), &obj) == nil && obj != nil
}
