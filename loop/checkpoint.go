package loop

import (
	"fmt"

	"talaria/providers"
)

// mayChangeFiles reports whether any call of the batch may change files.
func (a *Agent) mayChangeFiles(calls []providers.ToolCall) bool {
	for _, c := range calls {
		if a.opts.Tools.ChangesFiles(c.Name) {
			return true
		}
	}
	return false
}

// checkpoint records the working tree before a batch that may change
// files and announces it. A failure is reported as a cleanup error and the
// batch runs anyway: losing the undo must not lose the turn.
func (t *turn) checkpoint(calls []providers.ToolCall) {
	hook := t.a.opts.Checkpoint
	if hook == nil || t.stopped() || !t.a.mayChangeFiles(calls) {
		return
	}
	var id string
	var err error
	t.step("checkpoint", func() { id, err = hook(t.ctx, t.n, t.apiCalls) })
	if err != nil {
		if !t.stopped() {
			t.addCleanup(fmt.Sprintf("checkpoint before iteration %d: %v", t.apiCalls, err))
		}
		return
	}
	if id == "" {
		return
	}
	t.emit(&CheckpointCreated{Iteration: t.apiCalls, Checkpoint: id})
}
