package ui

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"talaria/providers"
)

// longHistory is a stored session of turns messages×4: a question, a
// tool call, its result and an answer. Message 1 (the first question)
// holds a word found nowhere else.
func longHistory(turns int) []providers.Message {
	var out []providers.Message
	for i := range turns {
		q := fmt.Sprintf("question %d", i)
		if i == 0 {
			q = "question 0 about the zanzibar parser"
		}
		id := fmt.Sprintf("call_%d", i)
		out = append(out,
			providers.Message{Role: providers.RoleUser, Content: q},
			providers.Message{Role: providers.RoleAssistant, ToolCalls: []providers.ToolCall{{ID: id, Name: "read_file", Arguments: `{"path":"a.go"}`}}},
			providers.Message{Role: providers.RoleTool, ToolCallID: id, Content: fmt.Sprintf("result %d", i), ToolStatus: providers.ToolStatusOK},
			providers.Message{Role: providers.RoleAssistant, Content: fmt.Sprintf("answer %d", i)},
		)
	}
	return out
}

// olderPort serves a stored session's earlier messages as app.Screen
// does, counting the calls.
type olderPort struct {
	mu    sync.Mutex
	msgs  []providers.Message
	calls []string
}

func (p *olderPort) older(_ context.Context, session string, before, n int) (Page, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls = append(p.calls, fmt.Sprintf("%s:%d:%d", session, before, n))
	from := max(0, before-n)
	for from > 0 && p.msgs[from].Role == providers.RoleTool {
		from--
	}
	return Page{Messages: append([]providers.Message(nil), p.msgs[from:before]...), From: from}, nil
}

func (p *olderPort) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.calls)
}

// resumedTail opens the screen on the last tail messages of a
// 1,000-message session, the rest served by the port.
func resumedTail(t *testing.T, tail int, mutate ...func(*Options)) (*harness, *olderPort, []providers.Message) {
	t.Helper()
	all := longHistory(250)
	op := &olderPort{msgs: all}
	h := newHarness(t, append([]func(*Options){func(o *Options) {
		fake(o).OnOlder = op.older
		o.History, o.HistoryBefore = all[len(all)-tail:], len(all)-tail
	}}, mutate...)...)
	return h, op, all
}

// userTexts lists the transcript's user messages, in order.
func userTexts(m *Model) []string {
	var out []string
	for _, e := range m.tr.entries {
		if u, ok := e.it.(*userItem); ok {
			out = append(out, u.text)
		}
	}
	return out
}

// TestResumedSessionShowsItsTailAndPagesOlder: a resumed 1,000-message
// session holds only its tail; scrolling to the top pages the older
// messages in, in order, with no duplicate and no gap, until the first.
func TestResumedSessionShowsItsTailAndPagesOlder(t *testing.T) {
	h, op, all := resumedTail(t, 200)
	h.size(100, 60)
	scr := h.screen()
	contains(t, scr, "answer 249", "resumed session · 1000 messages")
	if got := userTexts(h.m); len(got) != 50 || got[0] != "question 200" {
		t.Fatalf("the tail shows %d questions from %q", len(got), got[0])
	}
	if op.count() != 0 {
		t.Fatalf("the port was asked %v before any scroll", op.calls)
	}
	for i := 0; h.m.older.before > 0 || !h.m.tr.reachedTop && h.m.tr.top != 0; i++ {
		if i > 5000 {
			t.Fatalf("scrolling never reached the top: before %d", h.m.older.before)
		}
		h.press("pgup")
	}
	got := userTexts(h.m)
	if len(got) != 250 {
		t.Fatalf("%d questions after paging, want 250", len(got))
	}
	for i, q := range got {
		want := fmt.Sprintf("question %d", i)
		if i == 0 {
			want = all[0].Content
		}
		if q != want {
			t.Fatalf("question %d is %q", i, q)
		}
	}
	for _, e := range h.m.tr.entries {
		if b, ok := e.it.(*toolBatch); ok && b.segments[0].calls[0].state != toolDone {
			t.Fatalf("call %s shows %v: its result was split from it", b.segments[0].calls[0].id, b.segments[0].calls[0].state)
		}
	}
	if n := op.count(); n < 4 || n > 6 {
		t.Fatalf("%d pages for 800 messages: %v", n, op.calls)
	}
	h.press("pgup") // at the top with nothing left: no more reads
	for range 3 {
		h.press("pgup")
	}
	if h.m.older.before != 0 || op.count() > 6 {
		t.Fatalf("read on at the top: %v", op.calls)
	}
	contains(t, h.screen(), "zanzibar")
}

// TestPagerReachesMessageOne: the pager opened on a resumed tail pages
// in every earlier message, its search finds text in message 1, and
// closing it drops them again.
func TestPagerReachesMessageOne(t *testing.T) {
	h, op, _ := resumedTail(t, 200)
	h.size(100, 40)
	shown := h.m.tr.len()
	h.press("ctrl+t")
	if h.m.pager == nil {
		t.Fatal("the pager did not open")
	}
	if op.count() != 1 || h.m.older.before != 0 {
		t.Fatalf("pager: calls %v, before %d", op.calls, h.m.older.before)
	}
	h.press("/")
	h.typeText("zanzibar")
	h.press("enter")
	if len(h.m.pager.matches) != 1 {
		t.Fatalf("the search found %d lines", len(h.m.pager.matches))
	}
	contains(t, h.screen(), "zanzibar parser")
	h.press("q")
	if h.m.pager != nil || h.m.tr.len() != shown || h.m.older.before != 800 {
		t.Fatalf("after closing: pager %v, %d items (want %d), before %d", h.m.pager != nil, h.m.tr.len(), shown, h.m.older.before)
	}
	if got := userTexts(h.m); got[0] != "question 200" {
		t.Fatalf("the transcript starts at %q", got[0])
	}
}

// TestCopyReachesAnOlderAnswer: /copy N past the answers on screen reads
// the earlier messages for the one asked for, keeping none.
func TestCopyReachesAnOlderAnswer(t *testing.T) {
	h, op, _ := resumedTail(t, 200)
	shown := h.m.tr.len()
	h.typeText("/copy 250")
	msgs := h.key("enter")
	var raw string
	for _, m := range msgs {
		raw += rawOut(h.send(m))
	}
	if !strings.Contains(raw, osc52("answer 0")) {
		t.Fatalf("/copy 250 wrote %q", raw)
	}
	if op.count() != 1 || h.m.tr.len() != shown || h.m.older.before != 800 {
		t.Fatalf("calls %v, items %d (want %d), before %d", op.calls, h.m.tr.len(), shown, h.m.older.before)
	}
	h.typeText("/copy 251")
	h.settle(keyMsg("enter"))
	contains(t, h.screen(), "/copy 251: there are 250 answers")
}

// TestPrintOnExitAllReachesMessageOne: print_on_exit: all prints the
// messages the screen was not given too, first.
func TestPrintOnExitAllReachesMessageOne(t *testing.T) {
	var buf bytes.Buffer
	h, _, _ := resumedTail(t, 200, func(o *Options) { o.PrintOnExit, o.ExitOutput = PrintAll, &buf })
	h.m.printOnExit()
	out := buf.String()
	first, last := strings.Index(out, "zanzibar"), strings.Index(out, "answer 249")
	if first < 0 || last < first || strings.Count(out, "question 123") != 1 {
		t.Fatalf("print_on_exit all: first %d last %d\n%.400s", first, last, out)
	}
}

// TestOlderReadErrorIsSaidOnce: a page that cannot be read is a notice,
// once; neither scrolling nor the open pager keeps asking.
func TestOlderReadErrorIsSaidOnce(t *testing.T) {
	calls := 0
	h, _, _ := resumedTail(t, 200, func(o *Options) {
		fake(o).OnOlder = func(context.Context, string, int, int) (Page, error) {
			calls++
			return Page{}, fmt.Errorf("store is gone")
		}
	})
	h.size(100, 60)
	for range 300 {
		h.press("pgup")
	}
	h.press("ctrl+t")
	for range 5 {
		h.press("down")
	}
	h.press("q")
	if calls != 2 {
		t.Fatalf("%d reads, want one by scrolling and one by the pager", calls)
	}
	said := 0
	for _, e := range h.m.tr.entries {
		if n, ok := e.it.(*noticeItem); ok && n.text == "earlier messages could not be read: store is gone" {
			said++
		}
	}
	if said != 2 {
		t.Fatalf("the error was said %d times", said)
	}
}
