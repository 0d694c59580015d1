package app

import (
	"context"
	"testing"

	"talaria/providers"
	pt "talaria/providers/providertest"
)

// TestMessagesAreStoredWithTheirTurn: every message the agent saves (the
// user message, the tool results committed as they complete, the turn's
// end) reaches the store with the number of its turn, which the loop
// passes with it. A conversation rewind is done in place: the same
// session and agent go on (a background process the first turn started
// still runs; the rewind once reopened the session, which ended it), and
// the next turn takes the rewound turn's number again.
func TestMessagesAreStoredWithTheirTurn(t *testing.T) {
	w, ev, srv := switcherFixture(t)
	s := w.Current()
	srv.Push(pt.ToolCalls(pt.Call{Name: "terminal", Args: `{"command":"sleep 60","background":true}`}), pt.Text("one"),
		pt.ToolCalls(pt.Call{Name: "search_files", Args: `{"pattern":"nothing-here"}`}), pt.Text("two"),
		pt.Text("two again"))
	ev.turn(t, w, "first")
	ev.turn(t, w, "second")
	want := []int{1, 1, 1, 1, 2, 2, 2, 2} // user, call, result, answer; the same in turn 2
	procs := s.tools.env.Processes
	if procs.Running() != 1 {
		t.Fatalf("background processes running: %d, want 1", procs.Running())
	}
	check := func(want []int) {
		t.Helper()
		entries, err := s.Store.Entries(s.Record.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) != len(want) {
			t.Fatalf("%d messages stored, want %d", len(entries), len(want))
		}
		for i, e := range entries {
			if e.Turn != want[i] {
				t.Fatalf("message %d (%s %q) stored under turn %d, want %d", i+1, e.Message.Role, e.Message.Content, e.Turn, want[i])
			}
		}
	}
	check(want)
	if _, err := w.Rewind(context.Background(), RewindRequest{ToTurn: 2, Conversation: true}); err != nil {
		t.Fatal(err)
	}
	if w.Current() != s || procs.Running() != 1 {
		t.Fatalf("the rewind replaced the session (same %v) or ended its background process (%d running)", w.Current() == s, procs.Running())
	}
	if h := s.Agent.History(); len(h) != 4 || h[0].Role != providers.RoleUser || h[0].Content != "first" {
		t.Fatalf("the agent's history after the rewind: %+v", h)
	}
	if f := ev.turn(t, w, "second, again"); f.Turn != 2 || f.FinalResponse != "two again" {
		t.Fatalf("the turn after the rewind: turn %d %+v", f.Turn, f)
	}
	check(append(want, 2, 2))
}
