package app

import "talaria/tools"

// Approvals is the session's approval policy: its mode can be read and
// changed while the session runs (Shift+Tab, /approvals in the TUI).
func (s *Session) Approvals() *tools.Approver {
	if s == nil || s.tools == nil {
		return nil
	}
	return s.tools.approver
}
