package loop

import "talaria/providers"

// ReplaceHistory makes the session go on from history, as if only its
// first turns turns had happened: a conversation rewind done in place. The
// system prompt, backend, tools, background processes and what the agent
// learned of the backend stay; the running summary of earlier
// compressions goes (history holds whatever summary it keeps), as it would
// for a session opened afresh. The next turn is number turns+1. It returns
// ErrBusy while a turn or /compress runs.
func (a *Agent) ReplaceHistory(history []providers.Message, turns int) error {
	// A history not read yet is replaced, never read: the lazy lock is
	// held first (the lock order), so no read lands after the replacement.
	a.lazy.mu.Lock()
	defer a.lazy.mu.Unlock()
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cur != nil || a.compressing {
		return ErrBusy
	}
	a.history = append([]providers.Message(nil), history...)
	a.lazy.load = nil
	a.turns = max(turns, 0)
	a.reqs.changed()
	// No turn runs and none can start while a.mu is held: the compression
	// state is not being read.
	a.ctxs.summary, a.ctxs.passes = "", 0
	return nil
}
