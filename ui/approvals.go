package ui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"talaria/tools"
)

// cycleApprovals answers Shift+Tab: ask → auto-edit → read-only → ask
// (yolo steps back to ask).
func (m *Model) cycleApprovals() tea.Cmd {
	if !m.can.Approvals {
		m.notice(noticeMuted, "approvals cannot be changed here")
		return nil
	}
	next := m.agent.ApprovalMode().Next()
	m.agent.SetApprovalMode(next)
	m.chromeDirty = true
	return m.setHint("approvals: "+string(next)+" · shift+tab cycles", 2*time.Second)
}

// setApprovals answers /approvals [MODE]: without MODE it says the mode.
func (m *Model) setApprovals(args string) {
	if !m.can.Approvals {
		m.notice(noticeMuted, "approvals cannot be changed here")
		return
	}
	if strings.TrimSpace(args) == "" {
		m.notice(noticeInfo, fmt.Sprintf("approvals: %s · /approvals ask|auto-edit|read-only|yolo sets it, shift+tab cycles ask → auto-edit → read-only", m.agent.ApprovalMode()))
		return
	}
	mode, err := tools.ParseApprovalMode(args)
	if err != nil {
		m.notice(noticeWarn, err.Error())
		return
	}
	m.agent.SetApprovalMode(mode)
	m.chromeDirty = true
	m.notice(noticeInfo, "approvals: "+string(mode))
}

// containStatus is the status line's part about approvals and the
// sandbox, e.g. "auto-edit · sandbox workspace-write".
func (m *Model) containStatus() string {
	if !m.can.Approvals {
		return ""
	}
	s := string(m.agent.ApprovalMode())
	if m.opts.Sandbox != "" && m.opts.Sandbox != "off" {
		s += " · sandbox " + m.opts.Sandbox
	}
	return s
}
