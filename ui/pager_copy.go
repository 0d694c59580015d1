package ui

import (
	"fmt"
	"strings"
	"time"
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

// copyTarget is what the copy keys take: the message under the cursor
// (code false) or the code block under it, or the next one after it in
// that message (code true), with words for the hint that tells it was
// copied; or, when there is nothing to copy, why.
func (p *pager) copyTarget(code bool) (text, what, miss string) {
	at := p.pagerCursor()
	if at < 0 {
		return "", "", "nothing to copy here"
	}
	var lines []string
	if code {
		id := p.codes[at]
		for i := at; id < 0 && i < len(p.text) && p.blocks[i] == p.blocks[at]; i++ {
			id = p.codes[i]
		}
		if id < 0 {
			return "", "", "no code block here · y copies the message"
		}
		for i, c := range p.codes {
			if c == id {
				lines = append(lines, p.text[i])
			}
		}
		n := len(lines)
		return strings.Join(lines, "\n"), fmt.Sprintf("the code block (%d line%s)", n, plural(n)), ""
	}
	for i, b := range p.blocks {
		if b == p.blocks[at] {
			lines = append(lines, p.text[i])
		}
	}
	if len(lines) > 0 {
		lines[0] = strings.TrimPrefix(lines[0], "› ") // a user message: its text
	}
	text = strings.TrimSpace(strings.Join(lines, "\n"))
	n := strings.Count(text, "\n") + 1
	return text, fmt.Sprintf("the message (%d line%s)", n, plural(n)), ""
}

// hintShort is how long a hint about a key that did nothing stays.
const hintShort = 2 * time.Second
