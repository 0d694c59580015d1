package main

import (
	"sync"

	"talaria/tools"
)

// switchApprovals forwards the screen's approvals control to the approver
// of the current session, and carries a mode the user chose over to the
// next session (/new, /resume).
type switchApprovals struct {
	mu     sync.Mutex
	a      *tools.Approver
	chosen tools.ApprovalMode // "" until the user changes the mode
}

// set makes a the current approver, in the mode the user chose, if any.
func (s *switchApprovals) set(a *tools.Approver) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.a = a
	if a != nil && s.chosen != "" {
		a.SetMode(s.chosen)
	}
}

// Mode implements ui.ApprovalControl.
func (s *switchApprovals) Mode() tools.ApprovalMode {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.a == nil {
		return s.chosen
	}
	return s.a.Mode()
}

// SetMode implements ui.ApprovalControl.
func (s *switchApprovals) SetMode(m tools.ApprovalMode) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chosen = m
	if s.a != nil {
		s.a.SetMode(m)
	}
}
