package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// searchRecorder is a Search callback that remembers its queries and
// answers them with answer.
type searchRecorder struct {
	mu      sync.Mutex
	queries []string
	answer  func(q string) ([]SessionInfo, error)
}

func (r *searchRecorder) search(_ context.Context, q string) ([]SessionInfo, error) {
	r.mu.Lock()
	r.queries = append(r.queries, q)
	r.mu.Unlock()
	return r.answer(q)
}

func (r *searchRecorder) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.queries...)
}

// searchHarness is a picker harness whose Search answers with answer.
func searchHarness(t *testing.T, list []SessionInfo, answer func(string) ([]SessionInfo, error)) (*harness, *resumeRecorder, *searchRecorder) {
	rec := &resumeRecorder{}
	sr := &searchRecorder{answer: answer}
	h := newHarness(t, func(o *Options) {
		fake(o).OnSessions = func(context.Context) ([]SessionInfo, error) { return list, nil }
		fake(o).OnResume = rec.resume
		fake(o).OnSearch = sr.search
	})
	return h, rec, sr
}

// parserHits answers every query with hits that overlap the sessions
// whose titles contain "parser": deadbeef0001 (already a title match),
// 77aa88bb99cc (listed, given by id only), feed00000003 (not listed) and
// 77aa88bb99cc again.
func parserHits(q string) ([]SessionInfo, error) {
	return []SessionInfo{
		{ID: "deadbeef0001", Snippet: "split the " + q + " in two"},
		{ID: "77aa88bb99cc", Snippet: "…mention the " + q + " fix in the changelog…"},
		{ID: "feed00000003", Title: "tokenizer notes", Updated: t0.Add(-80 * time.Hour), Messages: 9, Snippet: "the " + q + " needs a lookahead of one token"},
		{ID: "77aa88bb99cc", Snippet: "a second hit in the same session"},
	}, nil
}

// typeAll types s into the picker and returns the messages of the
// commands the keys returned, without applying them.
func typeAll(h *harness, s string) []tea.Msg {
	var out []tea.Msg
	for _, r := range s {
		out = append(out, h.send(tea.KeyPressMsg{Code: r, Text: string(r)})...)
	}
	return out
}

// apply feeds messages back into Update.
func apply(h *harness, msgs []tea.Msg) {
	for _, msg := range msgs {
		h.send(msg)
	}
}

// rowIDs lists the picker's rows by id.
func rowIDs(p *picker) []string {
	var ids []string
	for i := range p.count() {
		ids = append(ids, p.row(i).ID)
	}
	return ids
}

func TestPickerSearchRunsInCommand(t *testing.T) {
	h, _, sr := searchHarness(t, pickerSessions(), parserHits)
	h.command("/sessions")
	if msgs := typeAll(h, "q"); len(msgs) != 0 || len(sr.got()) != 0 {
		t.Fatalf("one character searched: %v %q", msgs, sr.got())
	}
	_, cmd := h.m.Update(keyMsg("u"))
	if len(sr.got()) != 0 || cmd == nil {
		t.Fatalf("Update searched itself (%q) or returned no command", sr.got())
	}
	contains(t, h.screen(), "searching…")
	msgs := execCmd(cmd)
	if got := sr.got(); len(got) != 1 || got[0] != "qu" {
		t.Fatalf("queries %q", got)
	}
	apply(h, msgs)
	contains(t, h.screen(), "· 0 of 4 · 3 more in messages", "tokenizer notes", "the qu needs a lookahead")
	if strings.Contains(h.screen(), "searching…") {
		t.Error("still searching after the answer")
	}

	// Back to one character: no search, the hits go, and an answer still
	// on its way for a longer filter is dropped.
	late := typeAll(h, "x")
	h.key("backspace")
	h.key("backspace")
	if got := sr.got(); strings.Join(got, ",") != "qu,qux,qu" {
		t.Fatalf("queries %q", got)
	}
	apply(h, late)
	if p := h.m.modal.picker; len(p.hits) != 0 || p.searching {
		t.Errorf("hits %v, searching %v after shortening the filter", p.hits, p.searching)
	}
	contains(t, h.screen(), "· 0 of 4")

	// A paste searches too, with the trimmed text.
	h.key("backspace")
	apply(h, h.send(tea.PasteMsg{Content: " lexer \n"}))
	if got := sr.got(); got[len(got)-1] != "lexer" {
		t.Errorf("paste searched %q", got)
	}
	contains(t, h.screen(), "· 1 of 4 · 2 more in messages", "the lexer needs a lookahead")
}

func TestPickerSearchStaleAnswerDropped(t *testing.T) {
	h, _, sr := searchHarness(t, pickerSessions(), func(q string) ([]SessionInfo, error) {
		return []SessionInfo{{ID: "feed0000" + q, Title: "hit for " + q, Snippet: "found " + q}}, nil
	})
	h.command("/sessions")
	ab := typeAll(h, "ab")
	abc := typeAll(h, "c")
	if got := sr.got(); len(got) != 2 || got[0] != "ab" || got[1] != "abc" {
		t.Fatalf("queries %q", got)
	}
	apply(h, abc)
	apply(h, ab) // the answer for "ab" arrives last
	contains(t, h.screen(), "hit for abc", "found abc")
	if strings.Contains(h.screen(), "hit for ab ") || strings.Contains(h.screen(), "found ab\n") {
		t.Errorf("a stale answer was applied:\n%s", h.screen())
	}
	if got := rowIDs(h.m.modal.picker); len(got) != 1 || got[0] != "feed0000abc" {
		t.Errorf("rows %q", got)
	}

	// An answer for a picker since closed does not reach a new one.
	late := typeAll(h, "d")
	h.key("esc")
	h.command("/sessions")
	apply(h, late)
	if p := h.m.modal.picker; p == nil || len(p.hits) != 0 {
		t.Fatalf("reopened picker: %+v", p)
	}
}

func TestPickerSearchMergeAndDedupe(t *testing.T) {
	h, _, _ := searchHarness(t, pickerSessions(), parserHits)
	h.command("/sessions")
	msgs := typeAll(h, "parser")
	h.key("down") // deadbeef0001, before the hits arrive
	apply(h, msgs)
	p := h.m.modal.picker
	want := []string{"0a1b2c3d4e5f", "deadbeef0001", "77aa88bb99cc", "feed00000003"}
	if got := rowIDs(p); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("rows %q, want %q", got, want)
	}
	if s, _ := p.selected(); s.ID != "deadbeef0001" {
		t.Errorf("selection moved to %q", s.ID)
	}
	if r := p.row(2); r.Title != "Write the CHANGELOG for 0.2" || r.Messages != 6 || r.Snippet != "…mention the parser fix in the changelog…" {
		t.Errorf("a listed hit is not shown with its listing: %+v", r)
	}
	contains(t, h.screen(), "· 2 of 4 · 2 more in messages", "Write the CHANGELOG", "…mention the parser fix")
	if strings.Contains(h.screen(), "split the parser in two") || strings.Contains(h.screen(), "a second hit") {
		t.Errorf("a duplicate hit is listed:\n%s", h.screen())
	}
	for range 5 {
		h.key("down")
	}
	if p.sel != 3 {
		t.Errorf("sel %d, want the last row 3", p.sel)
	}
}

func TestPickerSearchEnterResumesHit(t *testing.T) {
	h, rec, _ := searchHarness(t, pickerSessions(), parserHits)
	h.command("/resume")
	apply(h, typeAll(h, "parser"))
	h.key("down")
	h.key("down")
	h.key("down")
	h.settle(keyMsg("enter"))
	if got := rec.got(); len(got) != 1 || got[0] != "feed00000003" {
		t.Fatalf("Resume got %q", got)
	}
	if h.m.modal.picker != nil {
		t.Error("picker still open after resuming")
	}
	contains(t, h.screen(), "› question of feed00000003")
}

func TestPickerSearchError(t *testing.T) {
	fail := true
	h, _, _ := searchHarness(t, pickerSessions(), func(q string) ([]SessionInfo, error) {
		if fail {
			return nil, errors.New("index unavailable:\nretry later")
		}
		return nil, nil
	})
	h.command("/sessions")
	apply(h, typeAll(h, "parser"))
	if h.m.modal.picker == nil {
		t.Fatal("a failed search closed the picker")
	}
	contains(t, h.screen(), "message search failed: index unavailable: retry later", "· 2 of 4", "fix the trailing comma")
	fail = false
	apply(h, typeAll(h, "s"))
	if strings.Contains(h.screen(), "search failed") {
		t.Error("the note outlived the next search")
	}
}

func TestPickerSearchScrollsTwoLineRows(t *testing.T) {
	var hits []SessionInfo
	for i := range 12 {
		hits = append(hits, SessionInfo{ID: fmt.Sprintf("%02dfeed000000", i), Title: fmt.Sprintf("hit %d", i), Snippet: fmt.Sprintf("snippet %d", i)})
	}
	h, _, _ := searchHarness(t, pickerSessions(), func(string) ([]SessionInfo, error) { return hits, nil })
	h.size(80, 24)
	h.command("/sessions")
	apply(h, typeAll(h, "zz"))
	room := h.m.pickerRows()
	for i := range 11 {
		h.key("down")
		contains(t, h.screen(), fmt.Sprintf("› %02dfeed", i+1), fmt.Sprintf("snippet %d", i+1))
	}
	p := h.m.modal.picker
	if p.top != 12-room/2 {
		t.Errorf("top %d, want %d", p.top, 12-room/2)
	}
	h.key("pgup")
	contains(t, h.screen(), fmt.Sprintf("› %02dfeed", 11-room))
}

func TestGoldenPickerSearch(t *testing.T) {
	for _, w := range []int{80, 120} {
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			h, _, _ := searchHarness(t, pickerSessions(), parserHits)
			h.size(w, 24)
			h.command("/sessions")
			apply(h, typeAll(h, "parser"))
			h.key("down")
			h.key("down")
			golden(t, h.m.View().Content)
		})
	}
}

func TestPickerSearchCancelled(t *testing.T) {
	h, _, _ := searchHarness(t, pickerSessions(), nil)
	h.port.OnSearch = func(ctx context.Context, q string) ([]SessionInfo, error) {
		<-ctx.Done() // answers only when cancelled
		return nil, ctx.Err()
	}
	h.command("/sessions")
	start := func(k string) <-chan tea.Msg {
		_, cmd := h.m.Update(keyMsg(k))
		out := make(chan tea.Msg, 1)
		go func() { out <- cmd() }()
		return out
	}
	h.typeText("a")
	ab := start("b")
	abc := start("c") // a newer filter cancels the older search
	msg := (<-ab).(searchResultMsg)
	if !errors.Is(msg.err, context.Canceled) {
		t.Errorf("the search for ab ended with %v", msg.err)
	}
	h.send(msg)
	if p := h.m.modal.picker; p.note != "" || !p.searching {
		t.Errorf("the cancelled search showed: note %q, searching %v", p.note, p.searching)
	}
	h.key("esc") // closing the picker cancels its search
	if msg := (<-abc).(searchResultMsg); !errors.Is(msg.err, context.Canceled) {
		t.Errorf("the search for abc ended with %v", msg.err)
	}
}
