package loop

// CancelCall stops one call of the running tool batch, by its
// tool_call_id, while the batch's other calls go on and the turn continues:
// the call gets a cancellation receipt (tool.completed with cancelled true)
// saying the user stopped it and what it had printed. A call of the batch
// that has not started yet is skipped. It reports false when no call of the
// running batch has that id (none runs, or it has already finished).
func (a *Agent) CancelCall(id string) bool {
	return a.calls.Cancel(id)
}

// RunningCalls lists the tool_call_ids that CancelCall accepts now.
func (a *Agent) RunningCalls() []string {
	return a.calls.Running()
}
