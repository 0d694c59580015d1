package app

import "talaria/tools"

// Mode is the current session's approvals mode (the one the user chose
// when no session is open). It implements ui.ApprovalControl.
func (w *Switcher) Mode() tools.ApprovalMode {
	w.mu.Lock()
	defer w.mu.Unlock()
	if a := w.cur.Approvals(); a != nil {
		return a.Mode()
	}
	return w.chosen
}

// SetMode sets the approvals mode of the current session and of the
// sessions opened after it (/new, /resume). It implements
// ui.ApprovalControl.
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
