package app

import "sync"

// cleanupStack is what an Open started, in the order it started it: the
// lease, the session record it created, the process manager (background
// commands, execute_code scripts, LSP servers) and MCP servers, the
// hooks, the recording and the OTLP exporter. Each step pushes its
// release as soon as the thing exists, so that a later step's failure
// releases everything before it (fail), and Session.Close releases what
// a working session holds (close), newest first in both cases. Each
// release runs at most once. Safe for concurrent use.
type cleanupStack struct {
	mu    sync.Mutex
	steps []cleanupStep
}

// cleanupStep is one release; undo marks one that only a failed Open
// runs (removing the session record it created), not Close.
type cleanupStep struct {
	release func()
	undo    bool
}

// push adds a release that both a failed Open and Close run.
func (c *cleanupStack) push(release func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.steps = append(c.steps, cleanupStep{release: release})
}

// pushUndo adds a release that only a failed Open runs.
func (c *cleanupStack) pushUndo(release func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.steps = append(c.steps, cleanupStep{release: release, undo: true})
}

// fail releases everything, newest first: Open failed.
func (c *cleanupStack) fail() { c.unwind(true) }

// close releases what a working session holds, newest first.
func (c *cleanupStack) close() { c.unwind(false) }

func (c *cleanupStack) unwind(failed bool) {
	c.mu.Lock()
	steps := c.steps
	c.steps = nil
	c.mu.Unlock()
	for i := len(steps) - 1; i >= 0; i-- {
		if failed || !steps[i].undo {
			steps[i].release()
		}
	}
}

// stop ends the hooks without running SessionEnd: a session that failed
// to open never started (SessionStart had not run). Asynchronous hooks
// already started are waited for.
func (h *sessionHooks) stop() {
	if h == nil {
		return
	}
	h.cancel()
	h.wg.Wait()
}

// deleteCreated removes the session record a failed Open created (a new or
// forked session that never ran), so that it does not show in the list.
func (s *Session) deleteCreated() {
	if s.created && s.Record != nil {
		_ = s.Store.DeleteSession(s.Record.ID)
		s.created = false
	}
}
