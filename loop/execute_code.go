package loop

import (
	"context"
	"fmt"
	"sync"

	"talaria/providers"
	"talaria/tools"
)

// executeCodeName is the tool whose scripts call tools.
const executeCodeName = "execute_code"

// scriptCalls tracks the execute_code call that runs now (the planner runs
// it alone: it is a barrier), so that its inner calls can name it.
type scriptCalls struct {
	mu     sync.Mutex
	parent string
	n      int
}

// begin records that execute_code call id started.
func (s *scriptCalls) begin(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.parent, s.n = id, 0
}

// end records that call id finished.
func (s *scriptCalls) end(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.parent == id {
		s.parent = ""
	}
}

// next returns the running script's id and the number of its next inner
// call.
func (s *scriptCalls) next() (parent string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	if s.parent == "" {
		return executeCodeName, s.n
	}
	return s.parent, s.n
}

// innerCaller returns the Env.CallTool of a batch: one call of a script
// runs through the executor's single-call path with the batch's hooks, so
// it is decoded, checked by the guardrails, approved, sandboxed and shown
// exactly like a direct call, with its events naming the script's call as
// parent_id. Its result goes back to the script; it is not an iteration
// and does not enter the history. The batch's checkpoint, taken before
// execute_code ran (it may change files), covers what inner calls change.
func (t *turn) innerCaller(run *batchRun, env *tools.Env) func(ctx context.Context, name, args string) tools.Result {
	return func(ctx context.Context, name, args string) tools.Result {
		parent, n := run.scripts.next()
		call := tools.BatchCall{ID: fmt.Sprintf("%s.%d", parent, n), Name: name, Arguments: args}
		// The agent's CallCancels: /cancel ID stops this inner call alone;
		// the script gets a ToolError and goes on.
		exec := tools.Executor{Registry: t.a.opts.Tools, Cancels: &t.a.calls}
		rs := exec.Run(ctx, env, []tools.BatchCall{call}, nil, t.hooks(run, parent))
		if len(rs) != 1 {
			return tools.Errorf("%s was not run (internal error)", name)
		}
		if rs[0].Stopped {
			return tools.Result{Output: "cancelled by the user; the script goes on. " + rs[0].Result.Output, IsError: true}
		}
		return rs[0].Result
	}
}

// onlyExecuteCode reports a batch made only of execute_code calls, whose
// iteration is refunded.
func onlyExecuteCode(calls []providers.ToolCall) bool {
	for _, c := range calls {
		if c.Name != executeCodeName {
			return false
		}
	}
	return len(calls) > 0
}
