package app

import (
	"context"

	"talaria/loop/trace"
	"talaria/tools"
)

// Mode is the current session's approvals mode (the one the user chose
// when no session is open); Screen.ApprovalMode reads it.
func (w *Switcher) Mode() tools.ApprovalMode {
	w.mu.Lock()
	defer w.mu.Unlock()
	if a := w.cur.Approvals(); a != nil {
		return a.Mode()
	}
	return w.chosen
}

// SetMode sets the approvals mode of the current session and of the
// sessions opened after it (/new, /resume); the screen sets it through
// Screen.SetApprovalMode.
func (w *Switcher) SetMode(m tools.ApprovalMode) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.chosen = m
	if a := w.cur.Approvals(); a != nil {
		a.SetMode(m)
	}
}

// MCPStarting lists the current session's MCP servers still starting.
func (w *Switcher) MCPStarting() []string { return w.Current().MCPStarting() }

// MCPNotices takes the current session's news about its MCP servers.
func (w *Switcher) MCPNotices() []string { return w.Current().MCPNotices() }

// Timeline answers /timeline [TURN] from the current session.
func (w *Switcher) Timeline(_ context.Context, turn int) (*trace.Log, error) {
	s := w.Current()
	if s == nil {
		return nil, ErrNoSession
	}
	return s.Timeline(turn)
}
