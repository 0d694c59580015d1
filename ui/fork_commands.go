package ui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

// sessionCommand runs /rename TITLE and /fork [TITLE].
func (m *Model) sessionCommand(name, args string) tea.Cmd {
	more, ctx := m.agent, m.ctx
	switch name {
	case "rename":
		title := strings.Join(strings.Fields(args), " ")
		switch {
		case !m.can.Rename:
			m.notice(noticeMuted, "/rename is not available here")
			return nil
		case title == "":
			m.notice(noticeWarn, "usage: /rename TITLE · the title shows in /sessions, and talaria -r TITLE resumes it")
			return nil
		}
		return func() tea.Msg {
			got, err := more.Rename(ctx, title)
			return commandResultMsg{apply: func(m *Model) tea.Cmd {
				if err != nil {
					return m.reportErr("/rename", err)
				}
				m.ses.title = got
				m.notice(noticeMuted, "renamed: "+got)
				m.chromeDirty = true
				return nil
			}}
		}
	case "fork":
		if !m.can.Fork {
			m.notice(noticeMuted, "/fork is not available here")
			return nil
		}
		if !m.mayChangeSession("/fork") {
			return nil
		}
		m.setPending("fork")
		orig := m.ses.id
		title := strings.Join(strings.Fields(args), " ")
		return func() tea.Msg {
			s, err := more.Fork(ctx, title)
			return commandResultMsg{settles: true, apply: func(m *Model) tea.Cmd {
				if err != nil {
					return m.reportErr("/fork", err)
				}
				cmd := m.switchSession(s)
				m.notice(noticeInfo, "forked: this is session "+s.ID+", a copy of "+orig+" with its history and checkpoints · the original is unchanged: /resume "+orig+" goes back")
				return cmd
			}}
		}
	}
	return nil
}
