package ui

import (
	"fmt"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// trustLines is how many lines of hooks and rules the dialog lists at
// most; the rest are counted.
const trustLines = 8

// askTrust is the start-up check: when the session's project has hooks or
// rules waiting for trust, the trust dialog is queued.
func (m *Model) askTrust() tea.Cmd {
	if !m.can.Extensions {
		return nil
	}
	ask := m.agent.Trust
	return func() tea.Msg {
		req := ask()
		if req.Empty() {
			return nil
		}
		return dialogMsg{req: &dialogRequest{kind: dialogTrust, trust: req, question: "trust the project " + req.Root + "?", reply: make(chan dialogAnswer, 1)}}
	}
}

// trustOptions are the trust dialog's answers.
func trustOptions() []dialogOption {
	return []dialogOption{
		{label: "Trust this folder: run its hooks and apply its rules", key: "t", act: actTrust},
		{label: "Not now (they stay off for this session)", key: "n", act: actNotNow},
	}
}

// trustProject runs the wiring's TrustProject (it writes the user's
// config) off the update loop.
func (m *Model) trustProject() tea.Cmd {
	if !m.can.Extensions {
		return nil
	}
	do := m.agent.TrustProject
	return func() tea.Msg {
		root, err := do()
		return commandResultMsg{apply: func(m *Model) tea.Cmd {
			m.onTrustDone(root, err)
			return nil
		}}
	}
}

// onTrustDone says what trusting did.
func (m *Model) onTrustDone(root string, err error) {
	if err != nil {
		m.notice(noticeWarn, "trust: "+err.Error())
		return
	}
	m.notice(noticeInfo, fmt.Sprintf("trusted %s (recorded in trusted_projects): its hooks and rules apply from now on", root))
}

// trustParts lays out the trust dialog: the folder, what it would add,
// the choices.
func (m *Model) trustParts(r *dialogRequest) []boxPart {
	st, w := m.look.st, m.innerWidth()
	t := r.trust
	title := st.Strong.Render("Trust this project? ") + st.Muted.Render(sanitize(t.Root)) + m.waitingNote()
	parts := []boxPart{
		{lines: []string{ansi.Truncate(title, w, "…")}},
		{lines: styled(st.Text, capLines(wrapText("Its own settings would add what follows. Untrusted, they are ignored.", w), 2, w)), rank: 3, keep: 1},
	}
	gutter := st.ToolRule.Render("│ ")
	var items []string
	for _, h := range t.Hooks {
		mt := h.Matcher
		if mt == "" {
			mt = "*"
		}
		items = append(items, fmt.Sprintf("hook %s %s: %s  (%s)", h.Event, mt, h.Command, relTo(t.Root, h.Path)))
	}
	for _, rl := range t.Rules {
		items = append(items, fmt.Sprintf("%s %s  (%s)", rl.List, rl.Rule, relTo(t.Root, rl.Path)))
	}
	var lines []string
	for i, it := range items {
		if i == trustLines-1 && len(items) > trustLines {
			lines = append(lines, gutter+st.Faint.Render(fmt.Sprintf("… %d more (talaria extensions lists them)", len(items)-i)))
			break
		}
		lines = append(lines, gutter+st.ToolArgs.Render(ansi.Truncate(sanitize(oneLine(it)), max(1, w-2), "…")))
	}
	parts = append(parts, boxPart{lines: lines, rank: 1, keep: 1}, boxPart{lines: []string{""}, rank: 2})
	return append(parts, boxPart{lines: m.optionLines(trustOptions(), w)}, m.footer("↑↓ move · enter confirm · esc not now"))
}

// relTo is path relative to root when it lies below it.
func relTo(root, path string) string {
	if rel, err := filepath.Rel(root, path); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
		return rel
	}
	return path
}
