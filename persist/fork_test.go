package persist

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"talaria/providers"
)

// TestForkSessionCopiesHistoryAndCheckpoints: a fork holds the original's
// log, turns, checkpoint and rewind records, snapshot, todos, span logs
// and system prompt, under a new id; what happens to one afterwards does
// not reach the other, and deleting the fork leaves the original whole.
func TestForkSessionCopiesHistoryAndCheckpoints(t *testing.T) {
	s := tempStore(t)
	prompt := "you are talaria\nModel: m\nProvider: p"
	orig := mustCreate(t, s, &Session{Cwd: "/p", Provider: "p", Model: "m", SystemPrompt: &prompt})
	for n := 1; n <= 3; n++ {
		if err := s.AppendTurnMessages(orig.ID, n, turnMsgs(n)...); err != nil {
			t.Fatal(err)
		}
		if err := s.AddCheckpoint(orig.ID, CheckpointRecord{Turn: n, Iteration: 1, Kind: CheckpointBefore, ID: "cp" + string(rune('0'+n))}); err != nil {
			t.Fatal(err)
		}
		if err := s.SaveSpans(orig.ID, n, json.RawMessage(`{"turn":`+string(rune('0'+n))+`}`)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.RecordRewind(orig.ID, Rewind{ToTurn: 3, Conversation: true, Code: true, Saved: "saved1"}); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveTodos(orig.ID, json.RawMessage(`[{"id":"1","content":"zebrafish","status":"pending"}]`)); err != nil {
		t.Fatal(err)
	}
	if err := s.UpdateSession(orig.ID, func(r *Session) { r.InputTokens, r.OutputTokens = 45200, 1200 }); err != nil {
		t.Fatal(err)
	}
	before, _ := s.GetSession(orig.ID)

	fork, err := s.ForkSession(orig.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	if fork.ID == orig.ID || fork.ParentID != orig.ID || fork.Title != "ask 1 (fork)" {
		t.Fatalf("fork record: id %q parent %q title %q", fork.ID, fork.ParentID, fork.Title)
	}
	got, err := s.GetSession(fork.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.SystemPrompt == nil || *got.SystemPrompt != prompt || got.InputTokens != 45200 || got.MessageCount != 6 || got.Turns != 2 {
		t.Fatalf("fork record as stored: %+v", got)
	}
	same := func(what string, a, b func(id string) (any, error)) {
		t.Helper()
		x, err1 := a(orig.ID)
		y, err2 := b(fork.ID)
		if err1 != nil || err2 != nil || !reflect.DeepEqual(x, y) {
			t.Errorf("%s differs:\noriginal %v (%v)\nfork     %v (%v)", what, x, err1, y, err2)
		}
	}
	entries := func(id string) (any, error) { return s.Entries(id) }
	resume := func(id string) (any, error) { return s.ResumeMessages(id) }
	turns := func(id string) (any, error) { return s.Turns(id) }
	todos := func(id string) (any, error) { v, err := s.Todos(id); return string(v), err }
	spans := func(id string) (any, error) { v, n, err := s.Spans(id, 2); return []any{string(v), n}, err }
	for what, f := range map[string]func(string) (any, error){"entries": entries, "resume": resume, "turns": turns, "todos": todos, "spans": spans} {
		same(what, f, f)
	}
	if cps, _ := s.Checkpoints(fork.ID); len(cps) != 3 || cps[1].ID != "cp2" {
		t.Fatalf("fork checkpoints: %+v", cps)
	}
	uses, _ := s.CheckpointUses()
	if len(uses) != 2 {
		t.Fatalf("checkpoint uses: %+v (the fork's records must keep the checkpoints from a prune)", uses)
	}
	hits, err := s.SearchSessions(context.Background(), "answer", 10, fork.ID)
	if err != nil || len(hits) == 0 {
		t.Fatalf("the fork's messages are not searchable: %v %v", hits, err)
	}

	// They go separate ways: turn 3 of the fork, a checkpoint of it.
	if err := s.AppendTurnMessages(fork.ID, 3, providers.Message{Role: providers.RoleUser, Content: "only in the fork"}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddCheckpoint(fork.ID, CheckpointRecord{Turn: 3, Kind: CheckpointBefore, ID: "cpf"}); err != nil {
		t.Fatal(err)
	}
	if cps, _ := s.Checkpoints(fork.ID); len(cps) != 4 || cps[3].Seq != 4 {
		t.Fatalf("a record after the fork numbers on: %+v", cps)
	}
	after, _ := s.GetSession(orig.ID)
	after.UpdatedAt = before.UpdatedAt
	if !reflect.DeepEqual(before, after) {
		t.Fatalf("the original changed:\nbefore %+v\nafter  %+v", before, after)
	}
	if e, _ := s.Entries(orig.ID); len(e) != 6 {
		t.Fatalf("the original has %d messages", len(e))
	}
	if cps, _ := s.Checkpoints(orig.ID); len(cps) != 3 {
		t.Fatalf("the original has %d checkpoints", len(cps))
	}
	if err := s.DeleteSession(fork.ID); err != nil {
		t.Fatal(err)
	}
	if e, err := s.ResumeMessages(orig.ID); err != nil || contents(e) != "ask 1|answer 1|ask 2|answer 2" {
		t.Fatalf("original after deleting the fork: %q %v", contents(e), err)
	}
	if _, err := s.ForkSession("nope", ""); !errors.Is(err, ErrNotFound) {
		t.Fatalf("fork of a missing session: %v", err)
	}
}

// TestForkSessionTitle: a given title is used (on one line); a fork of a
// fork is not "(fork) (fork)".
func TestForkSessionTitle(t *testing.T) {
	s := tempStore(t)
	orig := mustCreate(t, s, &Session{Cwd: "/p", Title: "plan"})
	f1, err := s.ForkSession(orig.ID, "")
	if err != nil || f1.Title != "plan (fork)" {
		t.Fatalf("%+v %v", f1, err)
	}
	f2, err := s.ForkSession(f1.ID, "")
	if err != nil || f2.Title != "plan (fork)" {
		t.Fatalf("%+v %v", f2, err)
	}
	f3, err := s.ForkSession(orig.ID, "  try\nthe other  way ")
	if err != nil || f3.Title != "try the other way" {
		t.Fatalf("%+v %v", f3, err)
	}
}
