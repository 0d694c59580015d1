package loop

import (
	"fmt"
	"sync"

	"talaria/providers"
)

// lazyHistory is a session's history while it is not read yet: a resumed
// session's agent starts without its messages (Options.LoadHistory) and
// reads them once, on first need: a turn's start, /compress, History (an
// export, the ACP replay). A failed read is tried again at the next need;
// until one succeeds no turn starts, so no turn ever runs on a silently
// empty history.
type lazyHistory struct {
	// mu serialises the read; it is taken before Agent.mu, never while
	// holding it.
	mu   sync.Mutex
	load func() ([]providers.Message, error) // nil once read
}

// HistoryError is a session history that could not be read when it was
// first needed; the turn (or command) that needed it did not run.
type HistoryError struct{ Err error }

func (e *HistoryError) Error() string {
	return fmt.Sprintf("the session's history could not be read, so nothing was sent (try again, or resume the session anew): %v", e.Err)
}

func (e *HistoryError) Unwrap() error { return e.Err }

// loadHistory reads the history if the agent opened without it.
func (a *Agent) loadHistory() error {
	a.lazy.mu.Lock()
	defer a.lazy.mu.Unlock()
	if a.lazy.load == nil {
		return nil
	}
	msgs, err := a.lazy.load()
	if err != nil {
		return &HistoryError{Err: err}
	}
	a.mu.Lock()
	// Nothing can have been added: no turn starts before the read.
	a.history = append(msgs, a.history...)
	a.reqs.changed()
	a.mu.Unlock()
	a.lazy.load = nil
	return nil
}

// HistoryPending reports whether the session's earlier messages exist
// but are not read yet (the session opened without them).
func (a *Agent) HistoryPending() bool {
	a.lazy.mu.Lock()
	defer a.lazy.mu.Unlock()
	return a.lazy.load != nil
}
