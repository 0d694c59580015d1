package ui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// popupRows is how many completions the popup shows at most.
const popupRows = 6

// command is one slash command.
type command struct {
	name string // without the slash
	args string // argument synopsis, "" when it takes none
	desc string
}

// commandList returns the slash commands in the order /help and the
// completion popup list them.
func commandList() []command {
	return []command{
		{"help", "", "show keys and commands"},
		{"stop", "", "interrupt the running turn"},
		{"steer", "TEXT", "inject TEXT into the running turn"},
		{"queue", "TEXT", "run TEXT as the next turn"},
		{"new", "", "start a new session"},
		{"resume", "[ID]", "continue a session (no ID: pick one)"},
		{"sessions", "", "pick a session to resume"},
		{"rename", "TITLE", "rename this session (shown in /sessions; -r TITLE resumes it)"},
		{"fork", "[TITLE]", "continue in a copy of this session (history and checkpoints); the original stays"},
		{"model", "[[PROVIDER/]NAME]", "switch the model (no name: pick from the provider's list)"},
		{"compress", "", "compress the context now"},
		{"rewind", "[TURN]", "take back turns: code, conversation or both (esc esc)"},
		{"undo", "", "rewind code and conversation to before the last turn"},
		{"diff", "", "show the session's changes to the working tree"},
		{"usage", "", "show token usage"},
		{"timeline", "[TURN]", "show where a turn's time went"},
		{"cancel", "[ID]", "stop one running tool call; the batch goes on"},
		{"status", "", "show the session, model, context and settings"},
		{"init", "", "write a starter AGENTS.md for this project (a model turn)"},
		{"skills", "", "list the skills, each with its SKILL.md"},
		{"agents", "", "list the subagents delegate_task can run"},
		{"theme", "[NAME]", "switch the colour theme"},
		{"approvals", "[MODE]", "ask, auto-edit, read-only or yolo"},
		{"copy", "[N]", "copy the last (or N-th last) answer to the clipboard"},
		{"quit", "", "leave talaria"},
	}
}

// parseCommand splits "/name args" when name is a known command. Text like
// "/usr/bin is missing" is a message, not a command.
func parseCommand(text string) (name, args string, ok bool) {
	t := strings.TrimSpace(text)
	if cmd, ok := strings.CutPrefix(t, "!"); ok && strings.TrimSpace(cmd) != "" {
		return "!", strings.TrimSpace(cmd), true // !cmd: a shell command
	}
	if !strings.HasPrefix(t, "/") {
		return "", "", false
	}
	head, rest, _ := strings.Cut(t[1:], " ")
	head = strings.ToLower(head)
	if to, ok := commandAliases()[head]; ok {
		head = to
	}
	for _, c := range commandList() {
		if c.name == head {
			return head, strings.TrimSpace(rest), true
		}
	}
	if head != "" && !strings.ContainsAny(head, "/.") && !strings.Contains(rest, "\n") {
		return head, rest, true // unknown command: answered with a notice
	}
	return "", "", false
}

// matches returns the commands completing the input, when the input is a
// command name being typed.
func (m *Model) matches() []command {
	v := m.comp.value()
	if !strings.HasPrefix(v, "/") || strings.ContainsAny(v, " \n") {
		return nil
	}
	prefix := strings.ToLower(v[1:])
	var out []command
	for _, c := range commandList() {
		if strings.HasPrefix(c.name, prefix) {
			out = append(out, c)
		}
	}
	return append(out, m.customMatches(prefix)...)
}

// popupOpen reports whether the completion popup shows.
func (m *Model) popupOpen() bool {
	return !m.ui.popupClosed && len(m.completions()) > 0
}

// movePopup moves the popup selection.
func (m *Model) movePopup(up bool) {
	n := len(m.completions())
	if up {
		m.ui.popupSel = (m.ui.popupSel - 1 + n) % n
	} else {
		m.ui.popupSel = (m.ui.popupSel + 1) % n
	}
	m.chromeDirty = true
}

// selected returns the highlighted completion.
func (m *Model) selected() (completion, bool) {
	cs := m.completions()
	if len(cs) == 0 {
		return completion{}, false
	}
	return cs[min(m.ui.popupSel, len(cs)-1)], true
}

// complete fills in the highlighted completion (Tab while idle).
func (m *Model) complete() tea.Cmd {
	c, ok := m.selected()
	if !ok || m.ui.popupClosed {
		return nil
	}
	m.comp.setText(c.text)
	m.ui.popupSel = 0
	m.chromeDirty = true
	return m.attachFile(c)
}

// acceptCompletion takes the highlighted completion when Enter is
// pressed: a partly typed command name runs the command, a theme name
// switches to it, a file name is filled in (and attached) without sending.
func (m *Model) acceptCompletion() (tea.Cmd, bool) {
	if !m.popupOpen() {
		return nil, false
	}
	c, _ := m.selected()
	if c.text == strings.TrimSpace(m.comp.value()) && c.kind != completeFile {
		return nil, false
	}
	m.ui.popupSel = 0
	switch c.kind {
	case completeFile:
		m.comp.setText(c.text)
		m.chromeDirty = true
		return m.attachFile(c), true
	case completeTheme:
		m.comp.commit(c.text)
		return m.runCommand("theme", c.name), true
	}
	m.comp.commit("/" + c.name)
	return m.runCommand(c.name, ""), true
}

// renderPopup draws the completion list (or the reverse search prompt)
// above the composer.
func (m *Model) renderPopup() string {
	if m.modalOpen() {
		return ""
	}
	st := m.look.st
	if m.comp.search.active {
		return st.Popup.Render(ansi.Truncate(m.searchLine(), max(1, m.width), "…"))
	}
	if !m.popupOpen() {
		return ""
	}
	ms := m.completions()
	sel := min(m.ui.popupSel, len(ms)-1)
	rows := min(popupRows, m.high-1-lineCount(m.composerView)-lineCount(m.panesView))
	if rows <= 0 {
		return ""
	}
	nameW := 24
	for _, c := range ms {
		nameW = max(nameW, min(ansi.StringWidth(c.label), m.width/2))
	}
	start := max(0, sel-rows+1)
	var lines []string
	for i := start; i < len(ms) && i < start+rows; i++ {
		c := ms[i]
		row := ansi.Truncate(" "+padRight(ansi.Truncate(c.label, nameW, "…"), nameW)+" "+c.desc, max(1, m.width), "…")
		if i == sel {
			lines = append(lines, st.PopupSelected.Render(padRight(row, m.width)))
		} else {
			lines = append(lines, st.Popup.Render(row))
		}
	}
	return strings.Join(lines, "\n")
}

// padRight pads s with spaces to w columns.
func padRight(s string, w int) string {
	return s + strings.Repeat(" ", max(0, w-ansi.StringWidth(s)))
}
