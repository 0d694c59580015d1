package ui

import (
	"context"
	"strings"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
)

// searchMinChars is the shortest filter the picker searches messages for.
const searchMinChars = 2

// searchResultMsg carries the answer of Port.Search for the filter
// tagged seq; only the latest search's answer is applied.
type searchResultMsg struct {
	seq  int
	hits []SessionInfo
	err  error
}

// pickerFiltered applies a changed filter: it refilters the listed
// sessions and starts a full-text search for the new text.
func (m *Model) pickerFiltered() tea.Cmd {
	switch p := m.modal.picker; {
	case p.setup != nil && p.models == nil:
		p.setup.note = ""
		m.chromeDirty = true
		return nil
	case p.models != nil:
		p.models.refilter(p.filter.value())
		m.chromeDirty = true
		return nil
	}
	m.modal.picker.refilter()
	m.chromeDirty = true
	return m.searchMessages()
}

// searchMessages asks Port.Search for the sessions whose messages
// contain the filter, in a command. Every call bumps the sequence number,
// so the answer to an older filter is dropped, and cancels the search
// still running for it.
func (m *Model) searchMessages() tea.Cmd {
	p, cb := m.modal.picker, m.agent
	m.modal.searchSeq++
	if p.stop != nil {
		p.stop()
	}
	p.stop, p.searching = nil, false
	q := strings.TrimSpace(p.filter.value())
	if !m.can.Search || utf8.RuneCountInString(q) < searchMinChars {
		return nil
	}
	ctx, stop := context.WithCancel(m.ctx)
	p.stop, p.searching = stop, true
	seq := m.modal.searchSeq
	return func() tea.Msg {
		defer stop()
		hits, err := cb.Search(ctx, q)
		return searchResultMsg{seq: seq, hits: hits, err: err}
	}
}

// handleSearchResult shows the answer of the latest search: its hits
// after the listed matches, or a note that it failed. Answers to an
// older filter, or to a picker since closed, are dropped.
func (m *Model) handleSearchResult(msg searchResultMsg) tea.Cmd {
	p := m.modal.picker
	if p == nil || msg.seq != m.modal.searchSeq {
		return nil
	}
	p.searching, p.stop = false, nil
	if msg.err != nil {
		p.note = "message search failed: " + oneLine(msg.err.Error())
	} else {
		p.setHits(msg.hits)
	}
	m.chromeDirty = true
	return nil
}

// setHits lists the full-text hits after the matches: one row per
// session, none already matched by title or id. A hit on a listed session
// shows the listing's row with the hit's snippet. The highlighted session
// stays highlighted.
func (p *picker) setHits(hits []SessionInfo) {
	cur, hadSel := p.selected()
	listed := make(map[string]int, len(p.all))
	for i, s := range p.all {
		listed[s.ID] = i
	}
	seen := make(map[string]bool, len(p.matches)+len(hits))
	for _, i := range p.matches {
		seen[p.all[i].ID] = true
	}
	p.hits = p.hits[:0]
	for _, h := range hits {
		if seen[h.ID] {
			continue
		}
		seen[h.ID] = true
		if i, ok := listed[h.ID]; ok {
			h = withSnippet(p.all[i], h.Snippet)
		}
		p.hits = append(p.hits, h)
	}
	for i := range p.count() {
		if hadSel && p.row(i).ID == cur.ID {
			p.sel = i
			return
		}
	}
	p.sel = max(0, min(p.sel, p.count()-1))
}

// withSnippet returns s with snippet as its snippet.
func withSnippet(s SessionInfo, snippet string) SessionInfo {
	s.Snippet = snippet
	return s
}

// closePicker closes the picker and cancels its search, if one runs.
func (m *Model) closePicker() {
	if p := m.modal.picker; p != nil && p.stop != nil {
		p.stop()
	}
	m.modal.picker = nil
}
