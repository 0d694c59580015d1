package ui

import (
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
)

// newComposerWith builds an empty composer whose history starts with the
// project's saved inputs (oldest first).
func newComposerWith(saved []string, born time.Time) composer {
	c := newComposer()
	c.born = born
	c.history = append([]string(nil), saved...)
	c.histIdx = len(c.history)
	return c
}

// histSearch is the Ctrl+R reverse search through the input history.
type histSearch struct {
	active bool
	query  string
	match  int    // index into history of the shown match; -1 when none
	draft  string // the input before the search, restored on cancel
}

// composerKey handles the composer's own keys that are not plain editing:
// Ctrl+D on an empty input quits, Ctrl+R searches the history (and, while
// searching, every key goes to the search), Ctrl+G edits the draft in
// $EDITOR. ok is false for any other key.
func (m *Model) composerKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	if m.comp.search.active {
		return m.searchKey(msg), true
	}
	switch msg.String() {
	case "ctrl+d":
		if m.comp.value() == "" {
			return m.quit(), true
		}
	case "ctrl+r":
		m.startSearch()
		return nil, true
	case "ctrl+g":
		return m.openEditor(), true
	}
	return nil, false
}

// startSearch opens the reverse search on the newest entry.
func (m *Model) startSearch() {
	c := &m.comp
	c.search = histSearch{active: true, match: -1, draft: c.value()}
	c.findOlder(len(c.history))
	m.chromeDirty, m.inputDirty = true, true
}

// searchKey applies a key while the reverse search is open: typing
// narrows it, Ctrl+R goes to an older match, Enter or Tab keeps the match
// in the composer (to edit or send), Esc, Ctrl+C and Ctrl+G restore the
// draft.
func (m *Model) searchKey(msg tea.KeyPressMsg) tea.Cmd {
	c := &m.comp
	s := &c.search
	m.chromeDirty, m.inputDirty = true, true
	switch msg.String() {
	case "ctrl+r":
		from := s.match
		if from < 0 {
			from = len(c.history)
		}
		c.findOlder(from)
	case "enter", "tab", "right", "end":
		s.active = false
		c.histIdx = len(c.history)
	case "esc", "ctrl+c", "ctrl+g":
		draft := s.draft
		c.search = histSearch{}
		c.setText(draft)
	case "backspace", "ctrl+h":
		if r := []rune(s.query); len(r) > 0 {
			s.query = string(r[:len(r)-1])
			c.findOlder(len(c.history))
		}
	default:
		if msg.Text != "" && msg.Mod&(tea.ModCtrl|tea.ModAlt) == 0 {
			s.query += msg.Text
			c.findOlder(len(c.history))
		}
	}
	return nil
}

// findOlder shows the newest entry before index from that contains the
// query (case-insensitive); with none, the match stays where it was.
func (c *composer) findOlder(from int) {
	q := strings.ToLower(c.search.query)
	for i := min(from, len(c.history)) - 1; i >= 0; i-- {
		if strings.Contains(strings.ToLower(c.history[i]), q) {
			c.search.match = i
			c.setText(c.history[i])
			return
		}
	}
	if c.search.match < 0 || q != "" && !strings.Contains(strings.ToLower(c.history[c.search.match]), q) {
		c.search.match = -1
		c.setText(c.search.draft)
	}
}

// searchLine is the reverse search's prompt, shown above the composer.
func (m *Model) searchLine() string {
	s := m.comp.search
	state := "reverse search"
	if s.match < 0 && s.query != "" {
		state = "reverse search: no match"
	}
	return " " + state + ": " + s.query + "▏ · ctrl+r older · enter keep · esc cancel"
}

// afterKey saves the history entries the key added (in a command: the
// store is I/O) and starts listing the working directory's files the
// first time an @ is typed.
func (m *Model) afterKey() tea.Cmd {
	var cmds []tea.Cmd
	if len(m.comp.unsaved) > 0 {
		texts := m.comp.unsaved
		m.comp.unsaved = nil
		if m.can.SaveInput {
			save := m.agent.SaveInput
			cmds = append(cmds, func() tea.Msg {
				for _, t := range texts {
					if err := save(t); err != nil {
						return commandResultMsg{apply: func(m *Model) tea.Cmd { return m.reportErr("saving the input history", err) }}
					}
				}
				return nil
			})
		}
	}
	cmds = append(cmds, m.ensureFileList())
	return tea.Batch(cmds...)
}

// typeaheadWindow is how long after the screen was made keys count as
// typed ahead, before the terminal left its line mode.
const typeaheadWindow = 500 * time.Millisecond

// typeahead fixes a key typed before the program was ready. The terminal
// was still in line mode then, and it turned Enter (CR) into LF, which
// reads as Ctrl+J, a newline: in the first moments an LF is the Enter it
// was typed as. The keys themselves are kept and applied in order.
func (m *Model) typeahead(msg tea.KeyPressMsg) tea.KeyPressMsg {
	if msg.String() == "ctrl+j" && m.clock().Sub(m.comp.born) < typeaheadWindow {
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	}
	return msg
}
