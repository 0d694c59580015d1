package tools

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
)

// Guardrail actions.
const (
	GuardAllow = "allow"
	GuardWarn  = "warn"
	GuardBlock = "block"
	GuardHalt  = "halt"
)

// Guardrail decision codes.
const (
	CodeExactFailureWarning = "repeated_exact_failure_warning"
	CodeExactFailureBlock   = "repeated_exact_failure_block"
	CodeSameToolFailureWarn = "same_tool_failure_warning"
	CodeSameToolFailureHalt = "same_tool_failure_halt"
	CodeNoProgressWarning   = "idempotent_no_progress_warning"
	CodeNoProgressBlock     = "idempotent_no_progress_block"
	CodeIdenticalStreakHalt = "identical_call_streak_halt"
	CodeIdenticalCycleHalt  = "identical_cycle_halt"
	CodeLoopSubagentCap     = "loop_subagent_cap"
)

// Defaults of the loop caps, and the stall guard's fixed limits.
const (
	defaultMaxSubagents       = 50
	guardHistoryLen           = 64
	guardStubMinChars         = 512
	guardStubArgsPreviewChars = 120
)

// GuardrailConfig configures the tool-loop guardrails (tool_loop_guardrails
// in config.yaml). Thresholds below 1 fall back to their defaults.
type GuardrailConfig struct {
	// WarningsEnabled turns on the warn decisions.
	WarningsEnabled bool
	// HardStopEnabled turns on the block and halt decisions that end the
	// turn. The loop caps apply regardless, and so does the block of a
	// call that already failed HardExactFailure times with exactly these
	// arguments: with hard stops off it only refuses that call (it would
	// fail the same way) and the turn goes on.
	HardStopEnabled bool
	// WarnExactFailure is warn_after.exact_failure: failures of one call
	// with identical arguments.
	WarnExactFailure int
	// WarnSameToolFailure is warn_after.same_tool_failure: failures of one
	// tool this turn, whatever the arguments.
	WarnSameToolFailure int
	// WarnNoProgress is warn_after.idempotent_no_progress: identical results
	// of a read-only call with identical arguments.
	WarnNoProgress int
	// HardExactFailure is hard_stop_after.exact_failure.
	HardExactFailure int
	// HardSameToolFailure is hard_stop_after.same_tool_failure.
	HardSameToolFailure int
	// HardNoProgress is hard_stop_after.idempotent_no_progress.
	HardNoProgress int
	// MaxSubagents caps the subagents delegate_task may start per turn
	// (0 = no cap).
	MaxSubagents int
}

// DefaultGuardrailConfig returns Hermes's defaults (hermes.md §2.1):
// warnings on after 2 exact failures, 3 failures of one tool or 2
// unchanged read-only results; hard stops off (thresholds 5, 8 and 5); a
// loop cap of 50 subagents per turn.
func DefaultGuardrailConfig() GuardrailConfig {
	return GuardrailConfig{
		WarningsEnabled:     true,
		HardStopEnabled:     false,
		WarnExactFailure:    2,
		WarnSameToolFailure: 3,
		WarnNoProgress:      2,
		HardExactFailure:    5,
		HardSameToolFailure: 8,
		HardNoProgress:      5,
		MaxSubagents:        defaultMaxSubagents,
	}
}

// normalized replaces invalid thresholds and caps with their defaults.
func (c GuardrailConfig) normalized() GuardrailConfig {
	d := DefaultGuardrailConfig()
	fix := func(v *int, def int) {
		if *v < 1 {
			*v = def
		}
	}
	fix(&c.WarnExactFailure, d.WarnExactFailure)
	fix(&c.WarnSameToolFailure, d.WarnSameToolFailure)
	fix(&c.WarnNoProgress, d.WarnNoProgress)
	fix(&c.HardExactFailure, d.HardExactFailure)
	fix(&c.HardSameToolFailure, d.HardSameToolFailure)
	fix(&c.HardNoProgress, d.HardNoProgress)
	if c.MaxSubagents < 0 {
		c.MaxSubagents = d.MaxSubagents
	}
	return c
}

// GuardrailDecision is what the guardrails say about one call.
type GuardrailDecision struct {
	// Action is GuardAllow, GuardWarn, GuardBlock or GuardHalt.
	Action string
	// Code names the rule that fired (empty for a plain allow).
	Code string
	// Tool is the tool name.
	Tool string
	// Count is the repeat count behind the decision.
	Count int
	// Message explains the decision to the model, in words it can act on.
	Message string
	// Signature is the call signature (CallSignature); it holds no
	// argument values.
	Signature string
	// GoesOn marks a block that refuses the call without ending the turn
	// (an exact repeat of a failing call while hard stops are off).
	GoesOn bool
}

// AllowsExecution reports whether the call may run (allow or warn).
func (d GuardrailDecision) AllowsExecution() bool {
	return d.Action == "" || d.Action == GuardAllow || d.Action == GuardWarn
}

// ShouldHalt reports whether the turn must end after the batch, with exit
// reason guardrail_halt (a halt, or a block that does not go on).
func (d GuardrailDecision) ShouldHalt() bool {
	return d.Action == GuardBlock && !d.GoesOn || d.Action == GuardHalt
}

// Annotation returns the text to append to the tool result for a warn or
// halt decision ("\n\n[Tool loop warning: CODE; count=N; MESSAGE]"), and ""
// otherwise.
func (d GuardrailDecision) Annotation() string {
	label := ""
	switch d.Action {
	case GuardWarn:
		label = guardWarnLabel
	case GuardHalt:
		label = guardHaltLabel
	default:
		return ""
	}
	return fmt.Sprintf("\n\n[%s: %s; count=%d; %s]", label, d.Code, d.Count, d.Message)
}

// The labels Annotation starts its note with.
const (
	guardWarnLabel = "Tool loop warning"
	guardHaltLabel = "Tool loop hard stop"
)

// StripAnnotation returns a tool's output without the guardrail note
// Annotation appended to it, if it has one.
func StripAnnotation(out string) string {
	if !strings.HasSuffix(out, "]") {
		return out
	}
	for _, label := range [...]string{guardWarnLabel, guardHaltLabel} {
		if i := strings.LastIndex(out, "\n\n["+label+": "); i >= 0 {
			return out[:i]
		}
	}
	return out
}

// BlockedResult returns the synthetic error result that replaces a blocked
// call: {"error": MESSAGE, "guardrail": {action, code, tool, count,
// signature}}.
func (d GuardrailDecision) BlockedResult() Result {
	type meta struct {
		Action    string `json:"action"`
		Code      string `json:"code"`
		Tool      string `json:"tool"`
		Count     int    `json:"count"`
		Signature string `json:"signature"`
	}
	b, _ := json.Marshal(struct {
		Error     string `json:"error"`
		Guardrail meta   `json:"guardrail"`
	}{d.Message, meta{d.Action, d.Code, d.Tool, d.Count, d.Signature}})
	return Result{Output: string(b), IsError: true}
}

// GuardrailHaltResponse is the final answer of a turn that a block or halt
// decision ended.
func GuardrailHaltResponse(d GuardrailDecision) string {
	return fmt.Sprintf("I stopped retrying %s: it hit the tool-loop guardrail %s after %d repeated attempts that made no progress. "+
		"Retrying the same thing will not help; the next step needs a different strategy (other arguments, another tool, or more information from you).",
		d.Tool, d.Code, d.Count)
}

// noProgress is the last result of a read-only call and how many times in
// a row it came back unchanged.
type noProgress struct {
	hash  string
	count int
}

// Guardrails is the per-turn tool-loop guardrail controller (hermes.md §2).
// It only counts and decides: the loop appends warnings to results,
// substitutes BlockedResult for blocked calls and ends the turn on
// ShouldHalt. All methods are safe for concurrent use; decisions about
// calls that run concurrently depend on the order their methods are
// called in.
type Guardrails struct {
	mu  sync.Mutex
	cfg GuardrailConfig

	exact      map[string]int        // signature → failures with identical args
	progress   map[string]bool       // signature → progress since its last failure
	sameTool   map[string]int        // tool → failures this turn
	noProgress map[string]noProgress // signature → unchanged read-only results
	subagents  int
	charged    map[string]int // signature → subagents charged, not yet settled

	// traits looks up a tool's traits by name (SetTraits).
	traits func(string) (Traits, bool)

	stall stallState
}

// NewGuardrails returns a controller with cfg (invalid thresholds replaced
// by the defaults), ready for a turn.
func NewGuardrails(cfg GuardrailConfig) *Guardrails {
	g := &Guardrails{cfg: cfg.normalized()}
	g.ResetForTurn()
	return g
}

// SetTraits sets how the controller learns a tool's traits (a
// Registry's Traits method); until then, and for nil, it knows the
// built-in tools only.
func (g *Guardrails) SetTraits(f func(name string) (Traits, bool)) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.traits = f
}

// traitsOf returns the traits of the tool called name (the zero Traits
// for one it does not know). g.mu is held.
func (g *Guardrails) traitsOf(name string) Traits {
	f := g.traits
	if f == nil {
		f = BuiltinTraits
	}
	tr, _ := f(name)
	return tr
}

// Config returns the controller's effective configuration.
func (g *Guardrails) Config() GuardrailConfig {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.cfg
}

// ResetForTurn clears every count; the loop calls it when a turn starts.
func (g *Guardrails) ResetForTurn() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.exact = map[string]int{}
	g.progress = map[string]bool{}
	g.sameTool = map[string]int{}
	g.noProgress = map[string]noProgress{}
	g.charged = map[string]int{}
	g.subagents = 0
	g.stall = stallState{}
}

// BeforeCall decides whether a call may run: the loop caps first (applied
// even with hard stops off), then a block for a call that already failed
// HardExactFailure times with identical arguments (no progress since; with
// hard stops off the turn goes on: see GoesOn) and, with hard stops on, a
// block for a read-only call whose result came back unchanged
// HardNoProgress times.
func (g *Guardrails) BeforeCall(name, args string) GuardrailDecision {
	g.mu.Lock()
	defer g.mu.Unlock()
	sig := CallSignature(name, args)
	d := GuardrailDecision{Action: GuardAllow, Tool: name, Signature: sig}
	tr := g.traitsOf(name)
	spawn := 0
	if tr.Spawns != nil && g.cfg.MaxSubagents > 0 {
		n, goals := tr.Spawns(args)
		if room := g.cfg.MaxSubagents - g.subagents; n > room {
			rejected := goals[max(room, 0):]
			return g.block(d, CodeLoopSubagentCap, g.subagents, fmt.Sprintf(
				"Blocked: %s would start %d subagents but only %d of the per-turn cap of %d remain. Not started: %s. Do the work yourself or delegate fewer tasks.",
				name, n, max(room, 0), g.cfg.MaxSubagents, strings.Join(rejected, "; ")))
		}
		spawn = n
	}
	exact := g.exact[sig]
	if g.progress[sig] {
		exact = 0
	}
	if exact >= g.cfg.HardExactFailure {
		d = g.block(d, CodeExactFailureBlock, exact, fmt.Sprintf(
			"Blocked: %s already failed %d times with these exact arguments; it was not run again. Change strategy, or explain to the user what is blocking you.", name, exact))
		d.GoesOn = !g.cfg.HardStopEnabled
		return d
	}
	if g.cfg.HardStopEnabled {
		if np := g.noProgress[sig]; tr.idempotent() && np.count >= g.cfg.HardNoProgress {
			return g.block(d, CodeNoProgressBlock, np.count, fmt.Sprintf(
				"Blocked: the read-only call %s returned the same result %d times with these exact arguments. Use the result you already have.", name, np.count))
		}
	}
	if spawn > 0 {
		g.subagents += spawn
		g.charged[sig] += spawn
	}
	return d
}

// block fills d as a block decision.
func (g *Guardrails) block(d GuardrailDecision, code string, count int, msg string) GuardrailDecision {
	d.Action, d.Code, d.Count, d.Message = GuardBlock, code, count, msg
	return d
}

// delegateSpawns returns how many subagents a delegate_task call would
// start (0 for the control actions list, steer and stop) and their goals.
func delegateSpawns(args string) (int, []string) {
	var a struct {
		Action string `json:"action"`
		Goal   string `json:"goal"`
		Tasks  []struct {
			Goal string `json:"goal"`
		} `json:"tasks"`
	}
	_ = json.Unmarshal([]byte(args), &a)
	switch strings.TrimSpace(a.Action) {
	case "list", "steer", "stop":
		return 0, nil
	}
	if len(a.Tasks) == 0 {
		return 1, []string{clipGoal(a.Goal)}
	}
	goals := make([]string, len(a.Tasks))
	for i, t := range a.Tasks {
		goals[i] = clipGoal(t.Goal)
	}
	return len(a.Tasks), goals
}

// clipGoal shortens a subagent goal for a message.
func clipGoal(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 80 {
		return string(r[:80]) + "…"
	}
	if s == "" {
		return "(no goal)"
	}
	return s
}

// AfterCall records the outcome of a call that ran (failed is the result's
// error flag; ClassifyToolFailure is the fallback when there is none) and
// decides: a halt when a tool that is not failure-tolerant failed
// HardSameToolFailure times this turn (hard stops on), else a warning after
// WarnExactFailure identical failures, WarnSameToolFailure failures of the
// tool, or WarnNoProgress unchanged results of a read-only call.
func (g *Guardrails) AfterCall(name, args, output string, failed bool) GuardrailDecision {
	g.mu.Lock()
	defer g.mu.Unlock()
	sig := CallSignature(name, args)
	tr := g.traitsOf(name)
	d := GuardrailDecision{Action: GuardAllow, Tool: name, Signature: sig}
	if n := g.charged[sig]; n > 0 {
		delete(g.charged, sig)
		if failed {
			g.subagents -= n
		}
	}
	if failed {
		if g.progress[sig] {
			g.exact[sig] = 0
			delete(g.progress, sig)
		}
		g.exact[sig]++
		g.sameTool[name]++
		delete(g.noProgress, sig)
		exact, same := g.exact[sig], g.sameTool[name]
		d.Count = exact
		switch {
		case g.cfg.HardStopEnabled && !tr.FailureTolerant && same >= g.cfg.HardSameToolFailure:
			d.Action, d.Code, d.Count = GuardHalt, CodeSameToolFailureHalt, same
			d.Message = fmt.Sprintf("Stopped: %s failed %d times this turn. The turn ends here; a different approach is needed.", name, same)
			g.stall.halted = true
		case g.cfg.WarningsEnabled && exact >= g.cfg.WarnExactFailure:
			d.Action, d.Code = GuardWarn, CodeExactFailureWarning
			d.Message = fmt.Sprintf("%s has now failed %d times with these exact arguments. Repeating the call will not help: change the arguments or the approach.", name, exact)
		case g.cfg.WarningsEnabled && same >= g.cfg.WarnSameToolFailure:
			d.Action, d.Code, d.Count = GuardWarn, CodeSameToolFailureWarn, same
			d.Message = fmt.Sprintf("%s has failed %d times this turn. %s", name, same, recoveryHint(tr))
		}
		return d
	}
	delete(g.exact, sig)
	delete(g.progress, sig)
	delete(g.sameTool, name)
	if tr.ResetsProgress {
		for s := range g.exact {
			g.progress[s] = true
		}
		clear(g.sameTool)
	}
	if !tr.idempotent() {
		delete(g.noProgress, sig)
		return d
	}
	h := ResultHash(output)
	np := noProgress{hash: h, count: 1}
	if prev, ok := g.noProgress[sig]; ok && prev.hash == h {
		np.count = prev.count + 1
	}
	g.noProgress[sig] = np
	d.Count = np.count
	if g.cfg.WarningsEnabled && np.count >= g.cfg.WarnNoProgress {
		d.Action, d.Code = GuardWarn, CodeNoProgressWarning
		d.Message = fmt.Sprintf("%s returned the same result %d times with these exact arguments; nothing has changed. Use the result you already have or do something different.", name, np.count)
	}
	return d
}
