package app

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"talaria/loop/config"
	"talaria/persist"
	"talaria/providers"
	pt "talaria/providers/providertest"
)

// storedSession stores a session of turns turns (a question, a tool call,
// its result, an answer) with their turn numbers, as talaria saves them.
func storedSession(t *testing.T, home, cwd string, turns int) string {
	t.Helper()
	st, err := OpenStore(home)
	if err != nil {
		t.Fatal(err)
	}
	sess := &persist.Session{Cwd: cwd, Provider: "openai", Model: "gpt-4.1"}
	if err := st.CreateSession(sess); err != nil {
		t.Fatal(err)
	}
	var entries []persist.Entry
	for i := range turns {
		id := fmt.Sprintf("call_%d", i)
		for _, m := range []providers.Message{
			{Role: providers.RoleUser, Content: fmt.Sprintf("question %d", i)},
			{Role: providers.RoleAssistant, ToolCalls: []providers.ToolCall{{ID: id, Name: "read_file", Arguments: `{"path":"a.go"}`}}},
			{Role: providers.RoleTool, ToolCallID: id, Content: "package a", ToolStatus: providers.ToolStatusOK},
			{Role: providers.RoleAssistant, Content: fmt.Sprintf("answer %d", i), FinishReason: providers.FinishStop},
		} {
			entries = append(entries, persist.Entry{Message: m, Turn: i + 1})
		}
	}
	if err := st.AppendEntries(sess.ID, entries...); err != nil {
		t.Fatal(err)
	}
	return sess.ID
}

// TestResumeOpensWithoutTheHistory: a resumed 1,000-message session
// opens without its agent holding the history; the screen gets the tail
// and pages the rest, in order, from the store; the first turn after the
// resume sends the whole history to the model (through the real client).
func TestResumeOpensWithoutTheHistory(t *testing.T) {
	srv := pt.New(t)
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("OPENAI_BASE_URL", srv.URL())
	home, cwd := t.TempDir(), t.TempDir()
	id := storedSession(t, home, cwd, 250)
	ev := newEvents()
	f := Flags{Home: home, Cwd: cwd, Resume: id, Overrides: config.Overrides{Provider: "openai", Model: "gpt-4.1", Yolo: true}}
	w := NewSwitcher(context.Background(), f, ev.sink)
	s, err := w.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	if !s.Agent.HistoryPending() {
		t.Fatal("the agent read the history at open")
	}

	v := s.View()
	if v.Before != 800 || len(v.History) != 200 || v.History[0].Content != "question 200" {
		t.Fatalf("view: before %d, %d messages from %q", v.Before, len(v.History), v.History[0].Content)
	}
	if !s.Agent.HistoryPending() {
		t.Fatal("the view read the agent's history")
	}
	all, err := s.Store.Messages(id)
	if err != nil {
		t.Fatal(err)
	}
	sc := w.Screen(ScreenOptions{})
	paged := v.History
	for before := v.Before; before > 0; {
		p, err := sc.Older(context.Background(), id, before, 300)
		if err != nil {
			t.Fatal(err)
		}
		if p.From+len(p.Messages) != before || len(p.Messages) == 0 || p.Messages[0].Role == providers.RoleTool {
			t.Fatalf("page from %d with %d messages, before %d", p.From, len(p.Messages), before)
		}
		paged = append(append([]providers.Message(nil), p.Messages...), paged...)
		before = p.From
	}
	if !reflect.DeepEqual(paged, all) {
		t.Fatalf("the pages differ from the log (%d vs %d messages)", len(paged), len(all))
	}

	srv.Push(pt.Text("done"))
	if fin := ev.turn(t, w, "one more question"); !fin.Completed {
		t.Fatalf("turn: %+v", fin)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	msgs := reqs[0]["messages"].([]any)
	if len(msgs) != 1+1000+1 {
		t.Fatalf("the request carried %d messages, want the system prompt, 1,000 and the new one", len(msgs))
	}
	if first := msgs[1].(map[string]any)["content"]; first != "question 0" {
		t.Fatalf("the history sent starts with %v", first)
	}
	if s.Agent.HistoryPending() || len(s.Agent.History()) != 1002 {
		t.Fatalf("after the turn: pending %v, %d messages", s.Agent.HistoryPending(), len(s.Agent.History()))
	}
}
