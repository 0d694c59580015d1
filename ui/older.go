package ui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"talaria/providers"
)

// A long session opens on its tail (Session.Before, Options.HistoryBefore
// count the messages before it); the screen pages older messages in from
// the port as it needs them:
//
//   - the transcript scrolled to its top pages in olderPage more, kept;
//   - the pager (Ctrl+T) pages in all of them when it opens, so that it
//     and its search reach every message, and drops them when it closes;
//   - /copy N past the answers on screen, and print_on_exit: all, read
//     them for the moment and keep none.
const (
	// olderPage is how many messages a scroll to the top pages in.
	olderPage = 200
	// olderAll bounds what the pager, /copy and the exit print read.
	olderAll = 50_000
	// olderWait bounds one page's read.
	olderWait = 30 * time.Second
)

// olderState is what the screen knows of the messages it was not given.
type olderState struct {
	// before is how many of the session's messages come before the first
	// one in the transcript (0: it holds them all).
	before int
	// loading is set while a page is on its way.
	loading bool
	// gen is bumped when the screen switches session: a page for an
	// earlier one is dropped.
	gen int
	// pagerAdded is how many items at the transcript's top the pager
	// paged in, and pagerBefore what before was until then: both undone
	// when the pager closes.
	pagerAdded, pagerBefore int
	// failed is set once a page could not be read: no more are asked for
	// by scrolling (the pager still asks, and says so).
	failed bool
	// pagerAsked is set once the open pager asked for its page: once per
	// opening, whatever came of it.
	pagerAsked bool
}

// olderPurpose says what a page was read for.
type olderPurpose uint8

const (
	olderScroll olderPurpose = iota
	olderPager
	olderCopy
)

// olderMsg brings a page of older messages.
type olderMsg struct {
	gen     int
	purpose olderPurpose
	page    Page
	err     error
	// copyN is /copy's N less the answers on screen, for olderCopy.
	copyN, copyAsked int
}

// resetOlder starts over for a session whose first before messages the
// screen was not given; title is its stored title, which the first user
// message shown must not replace when it is not the session's first.
func (m *Model) resetOlder(before int, title string) {
	m.older = olderState{before: max(before, 0), gen: m.older.gen + 1}
	if title = deriveTitle(title); title != "" {
		m.ses.title = title
	}
}

// pageHistory runs after every Update: it takes the pages that arrive
// and asks for the ones the screen needs now.
func (m *Model) pageHistory(msg tea.Msg, cmd tea.Cmd) tea.Cmd {
	if om, ok := msg.(olderMsg); ok {
		return tea.Batch(cmd, m.takeOlder(om))
	}
	reached := m.tr.reachedTop
	m.tr.reachedTop = false
	o := &m.older
	if m.pager == nil {
		o.pagerAsked = false
		if o.pagerAdded > 0 {
			m.dropPagerOlder()
		}
	}
	if o.before == 0 || o.loading || m.agent == nil {
		return cmd
	}
	switch {
	case m.pager != nil && !o.pagerAsked:
		o.pagerAsked = true
		return tea.Batch(cmd, m.readOlder(olderPager, olderAll, 0))
	case m.pager == nil && reached && !o.failed:
		return tea.Batch(cmd, m.readOlder(olderScroll, olderPage, 0))
	}
	return cmd
}

// readOlder reads up to n messages before the first one shown, in a
// command.
func (m *Model) readOlder(purpose olderPurpose, n, copyN int) tea.Cmd {
	m.older.loading = true
	port, id, gen, before := m.agent, m.ses.id, m.older.gen, m.older.before
	ctx := m.ctx
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, olderWait)
		defer cancel()
		p, err := port.Older(ctx, id, before, n)
		if err == nil && (p.From < 0 || p.From+len(p.Messages) != before) {
			err = fmt.Errorf("the page of earlier messages does not end where the screen starts (%d+%d, want %d)", p.From, len(p.Messages), before)
		}
		return olderMsg{gen: gen, purpose: purpose, page: p, err: err, copyN: copyN}
	}
}

// takeOlder applies a page of older messages.
func (m *Model) takeOlder(om olderMsg) tea.Cmd {
	if om.gen != m.older.gen {
		return nil // for a session no longer shown
	}
	o := &m.older
	o.loading = false
	if om.err != nil {
		o.failed = true
		m.notice(noticeWarn, "earlier messages could not be read: "+errText(om.err))
		m.trDirty = true
		return nil
	}
	if om.purpose == olderCopy {
		return m.copyFromOlder(om)
	}
	if om.purpose == olderPager && m.pager == nil {
		return nil // closed before the page came
	}
	items := historyItems(om.page.Messages)
	if om.purpose == olderPager {
		o.pagerAdded, o.pagerBefore = len(items), o.before
	}
	o.before = om.page.From
	m.tr.prepend(items)
	m.trDirty = true
	if om.purpose == olderPager && m.pager != nil {
		m.pager.taken = time.Time{} // rebuilt now, not at the next frame
		m.pager = m.pager.refreshed(m.tr, m.pagerEnv())
	}
	return nil
}

// dropPagerOlder drops what the pager paged in, once it closed.
func (m *Model) dropPagerOlder() {
	m.tr.dropFront(m.older.pagerAdded)
	m.older.before = m.older.pagerBefore
	m.older.pagerAdded = 0
	m.trDirty = true
}

// copyOlder is /copy N for an answer before those on screen: the n-th
// last answer of the messages not shown.
func (m *Model) copyOlder(n, asked int) tea.Cmd {
	if m.older.loading {
		m.notice(noticeMuted, fmt.Sprintf("/copy %d: earlier messages are being read; try again in a moment", asked))
		return nil
	}
	cmd := m.readOlder(olderCopy, olderAll, n)
	return func() tea.Msg {
		om := cmd().(olderMsg)
		om.copyAsked = asked
		return om
	}
}

// copyFromOlder copies the answer /copy asked for from a page.
func (m *Model) copyFromOlder(om olderMsg) tea.Cmd {
	var answers []string
	for _, msg := range om.page.Messages {
		if msg.Role == providers.RoleAssistant && strings.TrimSpace(msg.Content) != "" {
			answers = append(answers, msg.Content)
		}
	}
	if om.copyN > len(answers) {
		shown := om.copyAsked - om.copyN
		m.notice(noticeWarn, fmt.Sprintf("/copy %d: there are %d answers", om.copyAsked, shown+len(answers)))
		return nil
	}
	text := answers[len(answers)-om.copyN]
	return m.copyText(text, fmt.Sprintf("answer %d back (%d characters)", om.copyAsked, len([]rune(text))))
}

// olderItems reads every message not shown and returns them as items,
// for print_on_exit: all, after the program ended (never from Update).
func (m *Model) olderItems() ([]item, error) {
	if m.older.before == 0 || m.agent == nil {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), olderWait)
	defer cancel()
	p, err := m.agent.Older(ctx, m.ses.id, m.older.before, olderAll)
	if err != nil {
		return nil, err
	}
	return historyItems(p.Messages), nil
}

// historyItems are the transcript items of stored messages: user
// messages, reasoning, answers and tool calls with their results (a call
// whose result is not among them shows as cancelled), as loadHistory
// shows a resumed session.
func historyItems(msgs []providers.Message) []item {
	var out []item
	calls := map[string]*callRef{}
	for _, msg := range msgs {
		switch msg.Role {
		case providers.RoleUser:
			if strings.TrimSpace(msg.Content) != "" {
				out = append(out, &userItem{text: msg.Content})
			}
		case providers.RoleAssistant:
			if strings.TrimSpace(msg.Reasoning) != "" {
				r := &reasoningItem{}
				r.set(msg.Reasoning)
				out = append(out, r)
			}
			if strings.TrimSpace(msg.Content) != "" {
				a := &assistantItem{}
				a.set(msg.Content)
				out = append(out, a)
			}
			if len(msg.ToolCalls) == 0 {
				continue
			}
			b := &toolBatch{segments: []*toolSegment{{mode: "sequential"}}}
			for _, tc := range msg.ToolCalls {
				c := &toolCall{id: tc.ID, name: tc.Name, args: tc.Arguments}
				b.segments[0].calls = append(b.segments[0].calls, c)
				calls[tc.ID] = &callRef{call: c, batch: b}
			}
			out = append(out, b)
		case providers.RoleTool:
			if ref, ok := calls[msg.ToolCallID]; ok {
				ref.call.state, ref.call.output = resumedState(msg), msg.Content
				ref.batch.ver++
			}
		}
	}
	for _, ref := range calls {
		if ref.call.state == toolPending {
			ref.call.state = toolCancelled
		}
	}
	return out
}
