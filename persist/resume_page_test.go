package persist

import (
	"fmt"
	"reflect"
	"testing"

	"talaria/providers"
)

// turnsWithTools is n turns of a user message, an assistant message with
// two tool calls, their two results and an answer (5 messages a turn).
func turnsWithTools(n int) []providers.Message {
	var out []providers.Message
	for i := range n {
		ts := int64(i*10 + 1) // not 0: the store stamps a zero timestamp
		out = append(out,
			providers.Message{Role: providers.RoleUser, Content: fmt.Sprintf("q%d", i), Timestamp: ts},
			providers.Message{Role: providers.RoleAssistant, Timestamp: ts + 1, FinishReason: providers.FinishToolCalls,
				ToolCalls: []providers.ToolCall{{ID: fmt.Sprintf("a%d", i), Name: "read_file", Arguments: "{}"}, {ID: fmt.Sprintf("b%d", i), Name: "read_file", Arguments: "{}"}}},
			providers.Message{Role: providers.RoleTool, ToolCallID: fmt.Sprintf("a%d", i), ToolName: "read_file", Content: "x", Timestamp: ts + 2},
			providers.Message{Role: providers.RoleTool, ToolCallID: fmt.Sprintf("b%d", i), ToolName: "read_file", Content: "y", Timestamp: ts + 3},
			providers.Message{Role: providers.RoleAssistant, Content: fmt.Sprintf("answer %d", i), FinishReason: providers.FinishStop, Timestamp: ts + 4},
		)
	}
	return out
}

// pageAll pages the whole resume history from its end, n at a time, and
// checks each page against want: in order, no gap, no duplicate, never
// starting on a tool result.
func pageAll(t *testing.T, s *Store, id string, n int, want []providers.Message) {
	t.Helper()
	var got []providers.Message
	before := -1
	for pages := 0; ; pages++ {
		if pages > len(want)+1 {
			t.Fatal("paging does not end")
		}
		p, err := s.ResumePageBefore(id, before, n)
		if err != nil {
			t.Fatal(err)
		}
		if p.Total != len(want) {
			t.Fatalf("total %d, want %d", p.Total, len(want))
		}
		if before >= 0 && p.From+len(p.Messages) != before {
			t.Fatalf("page [%d,+%d) does not end at %d", p.From, len(p.Messages), before)
		}
		if len(p.Messages) > 0 && p.Messages[0].Role == providers.RoleTool {
			t.Fatalf("page at %d starts with a tool result", p.From)
		}
		got = append(append([]providers.Message(nil), p.Messages...), got...)
		if p.From == 0 {
			break
		}
		before = p.From
	}
	if !reflect.DeepEqual(got, want) {
		i := 0
		for i < min(len(got), len(want)) && reflect.DeepEqual(got[i], want[i]) {
			i++
		}
		t.Fatalf("pages of %d: the paged history differs at message %d of %d (%d paged)", n, i, len(want), len(got))
	}
}

func TestResumePageBeforePagesTheLog(t *testing.T) {
	s := tempStore(t)
	id := mustCreate(t, s, &Session{Cwd: "/x"}).ID
	if p, err := s.ResumePageBefore(id, -1, 10); err != nil || p.Total != 0 || len(p.Messages) != 0 {
		t.Fatalf("empty session: %+v %v", p, err)
	}
	msgs := turnsWithTools(40) // 200 messages
	mustAppend(t, s, id, msgs...)
	tail, err := s.ResumePageBefore(id, -1, 12)
	if err != nil {
		t.Fatal(err)
	}
	// 200-12 = 188 is a tool result (turn 37's second); the page moves back
	// to its call at 186.
	if tail.From != 186 || len(tail.Messages) != 14 || !reflect.DeepEqual(tail.Messages, msgs[186:]) {
		t.Fatalf("tail from %d, %d messages", tail.From, len(tail.Messages))
	}
	for _, n := range []int{1, 3, 7, 50, 500} {
		pageAll(t, s, id, n, msgs)
	}
	if p, err := s.ResumePageBefore(id, 5, 0); err != nil || len(p.Messages) != 0 || p.Total != 200 {
		t.Fatalf("n=0: %+v %v", p, err)
	}
	if _, err := s.ResumePageBefore("nope", -1, 5); err == nil {
		t.Fatal("a missing session paged")
	}
}

// A compacted or rewound session pages the history it resumes with (the
// snapshot, then what followed), not the raw log.
func TestResumePageBeforeFollowsTheSnapshot(t *testing.T) {
	s := tempStore(t)
	id := mustCreate(t, s, &Session{Cwd: "/x"}).ID
	mustAppend(t, s, id, turnsWithTools(10)...)
	if err := s.SaveSnapshot(id, compacted("one")); err != nil {
		t.Fatal(err)
	}
	later := turnsWithTools(3)
	mustAppend(t, s, id, later...)
	want, err := s.ResumeMessages(id)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != 3+15 {
		t.Fatalf("resume history has %d messages", len(want))
	}
	for _, n := range []int{1, 4, 100} {
		pageAll(t, s, id, n, want)
	}
	// The log itself still pages as it was logged (what a screen that took
	// the tail before the compaction showed).
	log, err := s.Messages(id)
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.LogPageBefore(id, 40, 10)
	if err != nil || p.From != 30 || p.Total != 65 || !reflect.DeepEqual(p.Messages, log[30:40]) {
		t.Fatalf("log page: from %d total %d, %d messages, %v", p.From, p.Total, len(p.Messages), err)
	}
	if plain, err := s.PlainResume(id); err != nil || plain {
		t.Fatalf("a compacted session is plain: %v %v", plain, err)
	}
}
