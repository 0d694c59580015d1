package ui

import (
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"
)

// stopConfirmAfter is how long a call may run before x asks to be pressed
// again to stop it.
const stopConfirmAfter = 3 * time.Second

// laneKey handles the keys of the running lanes and the pager: Ctrl+T
// opens the pager, Ctrl+↑/↓ move the focus over running calls, x stops the
// focused one (pressed twice for a call running longer than
// stopConfirmAfter), Esc drops the focus. It reports false for other keys.
func (m *Model) laneKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	switch msg.String() {
	case "ctrl+t":
		return m.openPager(), true
	case "ctrl+up":
		return m.moveFocus(-1), true
	case "ctrl+down":
		return m.moveFocus(1), true
	}
	f := m.focusedCall()
	if f == nil {
		return nil, false
	}
	switch msg.String() {
	case "esc":
		m.unfocus(f)
		return nil, true
	case "x":
		return m.stopFocused(f), true
	}
	return nil, false
}

// runningCalls lists the running calls of the batch, in plan order.
func (m *Model) runningCalls() []*toolCall {
	var out []*toolCall
	if b := m.live.batch; b != nil {
		for _, s := range b.segments {
			for _, c := range s.calls {
				if c.state == toolRunning {
					out = append(out, c)
				}
			}
		}
	}
	return out
}

// focusedCall is the focused call, nil when none runs focused.
func (m *Model) focusedCall() *toolCall {
	ref, ok := m.live.calls[m.live.focus]
	if !ok || ref.call.state != toolRunning {
		return nil
	}
	return ref.call
}

// moveFocus moves the focus to the next or previous running call.
func (m *Model) moveFocus(dir int) tea.Cmd {
	run := m.runningCalls()
	if len(run) == 0 {
		return m.setHint("no tool call is running", 2*time.Second)
	}
	i := -1
	for k, c := range run {
		if c.id == m.live.focus {
			i = k
		}
	}
	next := run[0]
	if i >= 0 {
		next = run[(i+dir+len(run))%len(run)]
	} else if dir < 0 {
		next = run[len(run)-1]
	}
	if prev := m.focusedCall(); prev != nil {
		m.unfocus(prev)
	}
	next.focused, m.live.focus, m.live.confirmStop = true, next.id, ""
	m.bumpCall(next)
	return m.setHint("x stops "+next.name+" only · ctrl+↑/↓ next · esc unfocus", 3*time.Second)
}

// unfocus drops the focus mark of c.
func (m *Model) unfocus(c *toolCall) {
	if !c.focused {
		return
	}
	c.focused = false
	if m.live.focus == c.id {
		m.live.focus, m.live.confirmStop = "", ""
	}
	m.bumpCall(c)
}

// bumpCall redraws c's card.
func (m *Model) bumpCall(c *toolCall) {
	if ref, ok := m.live.calls[c.id]; ok {
		ref.batch.ver++
	}
	m.trDirty = true
}

// stopFocused stops the focused call, after a confirming second x when it
// has run for a while.
func (m *Model) stopFocused(c *toolCall) tea.Cmd {
	ran := m.clock().Sub(c.started)
	if ran > stopConfirmAfter && m.live.confirmStop != c.id {
		m.live.confirmStop = c.id
		return m.setHint(fmt.Sprintf("press x again to stop %s (running %s); the rest of the batch goes on", c.name, fmtDuration(ran)), 4*time.Second)
	}
	m.live.confirmStop = ""
	if !m.can.CancelCall {
		return m.setHint("this agent cannot stop a single call; esc interrupts the turn", 3*time.Second)
	}
	cc := m.agent
	id := c.id
	hint := m.setHint("stopping "+c.name+"…", 2*time.Second)
	return tea.Batch(hint, func() tea.Msg {
		cc.CancelCall(id)
		return nil
	})
}
