package ui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"talaria/providers"
)

// The root model's frame tick and what it adds to the transcript itself:
// notices, user messages, a resumed session's history.

// ensureTicking starts the frame tick unless it runs already.
func (m *Model) ensureTicking() tea.Cmd {
	if m.ui.ticking {
		return nil
	}
	m.ui.ticking = true
	return frameTick()
}

func frameTick() tea.Cmd {
	return tea.Tick(frameInterval, func(time.Time) tea.Msg { return frameMsg{} })
}

// needsTick reports whether anything on screen still moves.
func (m *Model) needsTick() bool {
	return m.turn.busy || m.live.retry != nil || m.ui.hint != "" || m.live.streamDirty || m.tr.hasLive || m.ui.mcpStarting != "" ||
		(m.dialog() != nil && !m.modal.armed)
}

// handleFrame advances spinners and countdowns and flushes streamed text.
func (m *Model) handleFrame() tea.Cmd {
	m.ui.now = m.clock()
	m.ui.frame++
	if m.ui.hint != "" && !m.ui.now.Before(m.ui.hintUntil) {
		m.ui.hint = ""
		m.chromeDirty = true
	}
	m.mark(m.live.flush())
	m.dialogArmed()
	m.pollMCP()
	if m.tr.hasLive {
		m.trDirty = true
	}
	if m.turn.busy || m.live.retry != nil {
		m.chromeDirty = true
	}
	if !m.needsTick() {
		m.ui.ticking = false
		return nil
	}
	return frameTick()
}

// pollMCP reads which MCP servers still start and reports whether any
// does; the status line shows them.
func (m *Model) pollMCP() bool {
	if m.agent == nil {
		return false
	}
	for _, n := range m.agent.MCPNotices() {
		m.notice(noticeWarn, n)
	}
	s := strings.Join(m.agent.MCPStarting(), ", ")
	if s != m.ui.mcpStarting {
		m.ui.mcpStarting, m.chromeDirty = s, true
	}
	return s != ""
}

// notice adds a notice to the transcript.
func (m *Model) notice(kind noticeKind, text string) {
	m.tr.push(&noticeItem{kind: kind, text: text})
	m.trDirty = true
}

// addUser adds a user message (or a delivered steer) to the transcript.
func (m *Model) addUser(text string, steer bool) {
	m.tr.push(&userItem{text: text, steer: steer})
	if !steer {
		m.noteTitle(text)
		m.scrollToEnd() // a new turn starts at the bottom
	}
	m.trDirty = true
}

// loadHistory shows a resumed session's messages: user messages,
// reasoning, answers and tool calls with their results (historyItems, the
// mapping the paged-in older messages use too).
func (m *Model) loadHistory(msgs []providers.Message) {
	for _, it := range historyItems(msgs) {
		switch it := it.(type) {
		case *userItem:
			m.addUser(it.text, false)
			m.comp.history = append(m.comp.history, it.text)
			continue
		case *assistantItem:
			m.ses.lastAnswer = it.text()
		}
		m.tr.push(it)
	}
	m.comp.histIdx = len(m.comp.history)
	if len(msgs) > 0 {
		m.notice(noticeMuted, fmt.Sprintf("resumed session · %d messages", m.older.before+len(msgs)))
	}
}
