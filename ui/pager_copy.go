package ui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
)

// pagerCursor is the line of text the pager's copy keys act on: the
// current search match, else the first line on screen that is not a
// separator.
func (p *pager) pagerCursor() int {
	at := p.top
	if len(p.matches) > 0 {
		at = p.matches[p.cur]
	}
	if at < 0 || at >= len(p.srcOf) {
		return -1
	}
	i := p.srcOf[at]
	for i < len(p.text) && p.blocks[i] < 0 {
		i++
	}
	if i >= len(p.text) {
		return -1
	}
	return i
}

// pagerCopy copies the message under the pager's cursor (y) or the code
// block under it, or the next one after it in that message (c).
func (m *Model) pagerCopy(code bool) tea.Cmd {
	p := m.pager
	at := p.pagerCursor()
	if at < 0 {
		return m.setHint("nothing to copy here", hintShort)
	}
	var lines []string
	if code {
		id := p.codes[at]
		for i := at; id < 0 && i < len(p.text) && p.blocks[i] == p.blocks[at]; i++ {
			id = p.codes[i]
		}
		if id < 0 {
			return m.setHint("no code block here · y copies the message", hintShort)
		}
		for i, c := range p.codes {
			if c == id {
				lines = append(lines, p.text[i])
			}
		}
		n := len(lines)
		return m.copyText(strings.Join(lines, "\n"), fmt.Sprintf("the code block (%d line%s)", n, plural(n)))
	}
	for i, b := range p.blocks {
		if b == p.blocks[at] {
			lines = append(lines, p.text[i])
		}
	}
	if len(lines) > 0 {
		lines[0] = strings.TrimPrefix(lines[0], "› ") // a user message: its text
	}
	text := strings.TrimSpace(strings.Join(lines, "\n"))
	n := strings.Count(text, "\n") + 1
	return m.copyText(text, fmt.Sprintf("the message (%d line%s)", n, plural(n)))
}

// hintShort is how long a hint about a key that did nothing stays.
const hintShort = 2 * time.Second
