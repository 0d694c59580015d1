package tools

import "encoding/json"

// Traits say how the batch planner, the approver, the guardrails and the
// checkpoints treat a tool's calls. They decide by these, never by the
// tool's name, so a new tool is one file: its Run and its Traits.
//
// The zero Traits is the careful default: the call runs alone, is asked
// for in the ask and auto-edit modes and refused by the read-only mode,
// gets a checkpoint before it, and the guardrails count its failures.
type Traits struct {
	// ReadOnly: a call changes nothing (no file, process or list, nothing
	// outside), whatever its arguments. Without Describe it runs without
	// approval in every mode; no checkpoint is taken for it; with
	// Idempotent the guardrails watch its unchanged results.
	ReadOnly bool
	// Claimed: ReadOnly is only the claim of an outside party (an MCP
	// server's readOnlyHint), not talaria's own knowledge: the approver
	// still asks in the ask mode, and allows it in auto-edit and
	// read-only.
	Claimed bool
	// Destructive: a call may destroy data, by its own account (an MCP
	// server's destructiveHint): the approval says so, and it is asked for
	// every time, never allowed for the session.
	Destructive bool
	// Internal: a call changes only the session's own state (its task
	// list, a question put to the user). It runs without approval in every
	// mode and needs no checkpoint, but is not read-only to the guardrails.
	Internal bool
	// Housekeeping: a call produces no answer of its own (the task list):
	// when only such calls ran after the model wrote text, that text can
	// stand as the turn's answer.
	Housekeeping bool
	// Barrier: a call always runs alone, never beside another one (clarify
	// waits for the user). Tools that are neither ParallelSafe nor
	// path-scoped are barriers too.
	Barrier bool
	// ParallelSafe: a call may run beside any other call of a batch,
	// reserving no path.
	ParallelSafe bool
	// Paths makes the tool path-scoped: it returns the paths, as the model
	// gave them, that a call reads (or writes, with Writes), decoded as Run
	// decodes them, and the error Run would give for arguments it refuses.
	// The planner runs path-scoped calls side by side unless one writes a
	// path another touches; the approver and the permission rules judge
	// edits by these paths.
	Paths func(args json.RawMessage) ([]string, error)
	// Writes: the paths of Paths are written (an edit inside the working
	// directory is what auto-edit allows), not only read.
	Writes bool
	// Describe, when set, tells the approver what one call does beyond the
	// above (see CallView): a shell command, a fetch, a summary. Its error
	// is the one Run would give: the call is refused with it.
	Describe func(args json.RawMessage) (CallView, error)
	// Idempotent: repeating a call with the same arguments should give the
	// same result; the guardrails warn, and with hard stops block, when it
	// keeps doing so. Only a ReadOnly tool is treated as idempotent.
	Idempotent bool
	// FailureTolerant: a failure is ordinary output (red tests, an empty
	// grep), so many failures of the tool in one turn never halt it.
	FailureTolerant bool
	// ResetsProgress: a success counts as progress, so the next identical
	// retry of a call that failed earlier is a new experiment.
	ResetsProgress bool
	// Poller: a call may return the same result again and again (waiting
	// on a process): exempt from the stall notices.
	Poller bool
	// Preview, when set, computes what a call would change in the files
	// under env.Cwd without writing anything, for the approval's diff
	// (PreviewEdit); its error is the one Run would give.
	Preview func(env *Env, args json.RawMessage) (EditPreview, error)
	// Spawns, when set, returns how many subagents a call starts and their
	// goals, for the per-turn subagent cap.
	Spawns func(args string) (n int, goals []string)
	// RecoveryHint is the advice of a same_tool_failure_warning ("" gives
	// a general one).
	RecoveryHint string
}

// CallView is what one call does, as the approver judges it.
type CallView struct {
	// Summary is the approval dialog's one-line description ("" keeps
	// "call TOOL ARGS").
	Summary string
	// Free: this call needs no approval in any mode (process list and
	// wait; delegate_task, whose children ask for their own calls).
	Free bool
	// Command is a shell command the call runs, judged as a command
	// (destructive, known safe, the exact-command allow-list); Workdir and
	// Background are where and how it runs.
	Command    string
	Workdir    string
	Background bool
	// Domain is the host a network fetch reads from: asked for per
	// domain, allowed by the read-only mode; URL is the address.
	Domain, URL string
	// Key, when set, is the session allow-list key of an otherwise
	// unjudged call (e.g. "process kill"); "" keys by tool name.
	Key string
}

// needsCheckpoint reports whether a call of a tool with these traits may
// change files, so a checkpoint must come before its batch.
func (t Traits) needsCheckpoint() bool { return !t.ReadOnly && !t.Internal }

// idempotent reports whether the guardrails treat the tool as idempotent.
func (t Traits) idempotent() bool { return t.ReadOnly && t.Idempotent }

// Traits returns the traits of the tool called name; the zero Traits and
// false when there is none.
func (r *Registry) Traits(name string) (Traits, bool) {
	if r == nil {
		return Traits{}, false
	}
	t, ok := r.Get(name)
	if !ok {
		return Traits{}, false
	}
	return t.Traits(), true
}

// ChangesFiles reports whether a call of the tool called name may change
// files: every tool but the read-only and internal ones, and every name r
// does not hold. A batch of calls that do not needs no checkpoint.
func (r *Registry) ChangesFiles(name string) bool {
	tr, ok := r.Traits(name)
	return !ok || tr.needsCheckpoint()
}
