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

// startSearch opens the reverse search on the newest entry.
func (c *composer) startSearch() composerIntent {
	c.search = histSearch{active: true, match: -1, draft: c.value()}
	c.findOlder(len(c.history))
	return composerIntent{dirty: dirtyChrome | dirtyInput}
}

// searchKey applies a key while the reverse search is open: typing
// narrows it, Ctrl+R goes to an older match, Enter or Tab keeps the match
// in the composer (to edit or send), Esc, Ctrl+C and Ctrl+G restore the
// draft.
func (c *composer) searchKey(msg tea.KeyPressMsg) composerIntent {
	s := &c.search
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
	return composerIntent{dirty: dirtyChrome | dirtyInput}
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
func (c *composer) searchLine() string {
	s := c.search
	state := "reverse search"
	if s.match < 0 && s.query != "" {
		state = "reverse search: no match"
	}
	return " " + state + ": " + s.query + "▏ · ctrl+r older · enter keep · esc cancel"
}

// afterKey hands over the history entries the key added (the root saves
// them through the port: the store is I/O) and starts listing the
// working directory's files the first time an @ is typed.
func (c *composer) afterKey(env *composerEnv) composerIntent {
	in := composerIntent{save: c.unsaved}
	c.unsaved = nil
	in.cmd = c.ensureFileList(env)
	return in
}

// typeaheadWindow is how long after the screen was made keys count as
// typed ahead, before the terminal left its line mode.
const typeaheadWindow = 500 * time.Millisecond

// typeahead fixes a key typed before the program was ready. The terminal
// was still in line mode then, and it turned Enter (CR) into LF, which
// reads as Ctrl+J, a newline: in the first moments an LF is the Enter it
// was typed as. The keys themselves are kept and applied in order.
func (c *composer) typeahead(msg tea.KeyPressMsg, now time.Time) tea.KeyPressMsg {
	if msg.String() == "ctrl+j" && now.Sub(c.born) < typeaheadWindow {
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	}
	return msg
}
