package persist

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"talaria/providers"
)

// call builds an assistant message with tool calls named after their ids.
func call(ids ...string) providers.Message {
	m := providers.Message{Role: providers.RoleAssistant, FinishReason: providers.FinishToolCalls}
	for _, id := range ids {
		m.ToolCalls = append(m.ToolCalls, providers.ToolCall{ID: id, Name: "tool_" + id, Arguments: "{}"})
	}
	return m
}

// result builds the tool result of a call.
func result(id string) providers.Message {
	return providers.Message{Role: providers.RoleTool, ToolCallID: id, ToolName: "tool_" + id, Content: "ok " + id}
}

// receipt is the "may have run" receipt of a call found unanswered on load.
func receipt(id string) providers.Message {
	return providers.Message{Role: providers.RoleTool, ToolCallID: id, ToolName: "tool_" + id,
		Content: fmt.Sprintf("[Tool execution interrupted — tool_%s may have run: talaria stopped before its result was saved. "+
			"Check its effects (files, processes, state) before running it again.]", id)}
}

func TestRepairDangling(t *testing.T) {
	user := providers.Message{Role: providers.RoleUser, Content: "go"}
	done := providers.Message{Role: providers.RoleAssistant, Content: "done"}
	for name, c := range map[string]struct{ in, want []providers.Message }{
		"empty":         {nil, nil},
		"complete":      {[]providers.Message{user, call("a", "b"), result("b"), result("a"), done}, nil},
		"ends dangling": {[]providers.Message{user, call("a", "b", "c"), result("b")}, []providers.Message{user, call("a", "b", "c"), result("b"), receipt("a"), receipt("c")}},
		"none answered": {[]providers.Message{user, call("a")}, []providers.Message{user, call("a"), receipt("a")}},
		"in the middle": {
			[]providers.Message{user, call("a", "b"), result("a"), user, call("c"), result("c"), done},
			[]providers.Message{user, call("a", "b"), result("a"), receipt("b"), user, call("c"), result("c"), done},
		},
		"two places": {
			[]providers.Message{call("a"), user, call("b", "c"), result("c")},
			[]providers.Message{call("a"), receipt("a"), user, call("b", "c"), result("c"), receipt("b")},
		},
		"repeated id": {[]providers.Message{call("a", "a")}, []providers.Message{call("a", "a"), receipt("a")}},
	} {
		in := append([]providers.Message(nil), c.in...)
		got := RepairDangling(in)
		want := c.want
		if want == nil {
			want = c.in
			if len(c.in) > 0 && &got[0] != &in[0] {
				t.Errorf("%s: a complete history was copied", name)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", name, got, want)
		}
		if !reflect.DeepEqual(in, c.in) {
			t.Errorf("%s: the input was modified", name)
		}
	}
}

func TestCloseDangling(t *testing.T) {
	s := tempStore(t)
	sess := mustCreate(t, s, &Session{})
	check := func(want int, tail ...providers.Message) {
		t.Helper()
		n, err := s.CloseDangling(sess.ID)
		if err != nil || n != want {
			t.Fatalf("CloseDangling = %d, %v; want %d", n, err, want)
		}
		got, err := s.MessagesTail(sess.ID, len(tail))
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			got[i].Timestamp = 0
		}
		if len(got)+len(tail) > 0 && !reflect.DeepEqual(got, tail) {
			t.Fatalf("tail:\n got %+v\nwant %+v", got, tail)
		}
	}
	check(0) // no messages
	user := providers.Message{Role: providers.RoleUser, Content: "go"}
	if err := s.AppendMessages(sess.ID, user, call("a", "b", "c"), result("b")); err != nil {
		t.Fatal(err)
	}
	check(2, result("b"), receipt("a"), receipt("c"))
	check(0, receipt("a"), receipt("c")) // idempotent
	if err := s.AppendMessages(sess.ID, call("d"), user); err != nil {
		t.Fatal(err)
	}
	check(0, call("d"), user) // not at the end: left to RepairDangling
	got, _ := s.GetSession(sess.ID)
	if got.MessageCount != 7 || got.ToolCallCount != 4 {
		t.Fatalf("counters %d/%d", got.MessageCount, got.ToolCallCount)
	}
	if _, err := s.CloseDangling("nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing session: %v", err)
	}
	verifyIndex(t, s)
}

func TestSystemPromptAPI(t *testing.T) {
	s := tempStore(t)
	sess := mustCreate(t, s, &Session{})
	get := func() (*string, string) {
		t.Helper()
		p, state, err := s.SystemPrompt(sess.ID)
		if err != nil {
			t.Fatal(err)
		}
		return p, state
	}
	if p, state := get(); p != nil || state != PromptMissing {
		t.Fatalf("new session: %v %q", p, state)
	}
	before, _ := s.GetSession(sess.ID)
	text := "You are talaria.\r\n\tModel: m\nProvider: p\n"
	for _, c := range []struct {
		set   *string
		state string
	}{{&text, PromptPresent}, {nil, PromptNull}, {new(string), PromptEmpty}, {&text, PromptPresent}} {
		if err := s.SetSystemPrompt(sess.ID, c.set); err != nil {
			t.Fatal(err)
		}
		p, state := get()
		if state != c.state || (c.set == nil) != (p == nil) || (p != nil && *p != *c.set) {
			t.Fatalf("set %v: got %v %q", c.set, p, state)
		}
	}
	if after, _ := s.GetSession(sess.ID); !after.UpdatedAt.Equal(before.UpdatedAt) || *after.SystemPrompt != text {
		t.Fatalf("session after SetSystemPrompt: %+v", after)
	}
	if _, _, err := s.SystemPrompt("nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing: %v", err)
	}
	if err := s.SetSystemPrompt("nope", &text); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing: %v", err)
	}
}

func TestEntriesTailAndV2Fields(t *testing.T) {
	s := tempStore(t)
	sess := mustCreate(t, s, &Session{GitRoot: "/src/p", GitBranch: "main", ParentID: "20260101_000000_000000"})
	var entries []Entry
	for i := range 25 {
		entries = append(entries, Entry{Message: providers.Message{Role: providers.RoleAssistant, Content: fmt.Sprint(i),
			FinishReason: providers.FinishStop, Timestamp: int64(1000 + i)}, Tokens: i})
	}
	if err := s.AppendEntries(sess.ID, entries[:10]...); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendEntries(sess.ID, entries[10:]...); err != nil {
		t.Fatal(err)
	}
	got, err := s.Entries(sess.ID)
	if err != nil || len(got) != 25 {
		t.Fatal(len(got), err)
	}
	for i, e := range got {
		if e.Seq != uint64(i+1) || e.Tokens != i || !reflect.DeepEqual(e.Message, entries[i].Message) {
			t.Fatalf("entry %d: %+v", i, e)
		}
	}
	for _, n := range []int{0, 1, 7, 25, 100} {
		tail, err := s.MessagesTail(sess.ID, n)
		if err != nil || len(tail) != min(n, 25) {
			t.Fatalf("tail %d: %d %v", n, len(tail), err)
		}
		for i, m := range tail {
			if m.Content != fmt.Sprint(25-len(tail)+i) {
				t.Fatalf("tail %d: message %d is %q", n, i, m.Content)
			}
		}
	}
	empty := mustCreate(t, s, &Session{})
	if tail, err := s.MessagesTail(empty.ID, 5); err != nil || len(tail) != 0 {
		t.Fatalf("tail of empty: %v %v", tail, err)
	}
	if _, err := s.MessagesTail("nope", 5); !errors.Is(err, ErrNotFound) {
		t.Fatalf("tail of missing: %v", err)
	}
	if err := s.AddUsageCost(sess.ID, 1, providers.Usage{InputTokens: 5}, 0.25); err != nil {
		t.Fatal(err)
	}
	if err := s.AddUsageCost(sess.ID, 1, providers.Usage{InputTokens: 5}, 0.5); err != nil {
		t.Fatal(err)
	}
	back, err := s.GetSession(sess.ID)
	if err != nil || back.GitRoot != "/src/p" || back.GitBranch != "main" || back.ParentID != "20260101_000000_000000" ||
		back.EstimatedCostUSD != 0.75 || back.InputTokens != 10 || back.APICallCount != 2 {
		t.Fatalf("v2 fields: %+v %v", back, err)
	}
}
