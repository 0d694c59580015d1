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
		{"model", "[PROVIDER/]NAME", "switch the model"},
		{"compress", "", "compress the context now"},
		{"usage", "", "show token usage"},
		{"status", "", "show the session, model, context and settings"},
		{"init", "", "write a starter AGENTS.md for this project (a model turn)"},
		{"theme", "[NAME]", "switch the colour theme"},
		{"copy", "", "copy the last answer to the clipboard"},
		{"quit", "", "leave talaria"},
	}
}

// parseCommand splits "/name args" when name is a known command. Text like
// "/usr/bin is missing" is a message, not a command.
func parseCommand(text string) (name, args string, ok bool) {
	t := strings.TrimSpace(text)
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
	return out
}

// popupOpen reports whether the completion popup shows.
func (m *Model) popupOpen() bool {
	return !m.ui.popupClosed && len(m.matches()) > 0
}

// movePopup moves the popup selection.
func (m *Model) movePopup(up bool) {
	n := len(m.matches())
	if up {
		m.ui.popupSel = (m.ui.popupSel - 1 + n) % n
	} else {
		m.ui.popupSel = (m.ui.popupSel + 1) % n
	}
	m.chromeDirty = true
}

// selected returns the highlighted completion.
func (m *Model) selected() (command, bool) {
	ms := m.matches()
	if len(ms) == 0 {
		return command{}, false
	}
	return ms[min(m.ui.popupSel, len(ms)-1)], true
}

// complete fills in the highlighted command (Tab while idle).
func (m *Model) complete() {
	c, ok := m.selected()
	if !ok || m.ui.popupClosed {
		return
	}
	text := "/" + c.name
	if c.args != "" {
		text += " "
	}
	m.comp.setText(text)
	m.ui.popupSel = 0
	m.chromeDirty = true
}

// acceptCompletion runs the highlighted command when Enter is pressed on
// a partly typed name that is not itself a command.
func (m *Model) acceptCompletion() (tea.Cmd, bool) {
	if !m.popupOpen() {
		return nil, false
	}
	c, _ := m.selected()
	if "/"+c.name == strings.TrimSpace(m.comp.value()) {
		return nil, false
	}
	m.comp.commit("/" + c.name)
	m.ui.popupSel = 0
	return m.runCommand(c.name, ""), true
}

// renderPopup draws the completion list above the composer.
func (m *Model) renderPopup() string {
	if !m.popupOpen() || m.modalOpen() {
		return ""
	}
	st := m.look.st
	ms := m.matches()
	sel := min(m.ui.popupSel, len(ms)-1)
	rows := min(popupRows, m.high-1-lineCount(m.composerView)-lineCount(m.panesView))
	if rows <= 0 {
		return ""
	}
	start := max(0, sel-rows+1)
	var lines []string
	for i := start; i < len(ms) && i < start+rows; i++ {
		c := ms[i]
		name := "/" + c.name
		if c.args != "" {
			name += " " + c.args
		}
		row := ansi.Truncate(" "+padRight(name, 24)+" "+c.desc, max(1, m.width), "…")
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
