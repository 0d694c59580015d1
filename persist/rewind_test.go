package persist

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"talaria/providers"
)

func turnMsgs(n int) []providers.Message {
	return []providers.Message{
		{Role: providers.RoleUser, Content: "ask " + string(rune('0'+n))},
		{Role: providers.RoleAssistant, Content: "answer " + string(rune('0'+n))},
	}
}

func contents(msgs []providers.Message) string {
	var b []string
	for _, m := range msgs {
		b = append(b, m.Content)
	}
	return strings.Join(b, "|")
}

func TestConversationRewindShortensHistoryKeepsLog(t *testing.T) {
	s := tempStore(t)
	sess := mustCreate(t, s, &Session{Cwd: "/p"})
	for n := 1; n <= 3; n++ {
		if err := s.AppendTurnMessages(sess.ID, n, turnMsgs(n)...); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.AddCheckpoint(sess.ID, CheckpointRecord{Turn: 2, Iteration: 1, Kind: CheckpointBefore, ID: "c2"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RecordRewind(sess.ID, Rewind{ToTurn: 2, Conversation: true, Code: true}); err != nil {
		t.Fatal(err)
	}
	got, err := s.ResumeMessages(sess.ID)
	if err != nil || contents(got) != "ask 1|answer 1" {
		t.Fatalf("resume after rewind: %q %v", contents(got), err)
	}
	rec, _ := s.GetSession(sess.ID)
	if rec.Turns != 1 {
		t.Fatalf("turns after rewind = %d, want 1", rec.Turns)
	}
	// The next turn takes number 2 again.
	if err := s.AppendTurnMessages(sess.ID, 2, providers.Message{Role: providers.RoleUser, Content: "again"}); err != nil {
		t.Fatal(err)
	}
	got, _ = s.ResumeMessages(sess.ID)
	if contents(got) != "ask 1|answer 1|again" {
		t.Fatalf("resume: %q", contents(got))
	}
	turns, err := s.Turns(sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	var desc []string
	for _, tr := range turns {
		d := tr.Input
		if !tr.Live {
			d += "(rewound)"
		}
		if len(tr.Checkpoints) > 0 {
			d += "[" + tr.Checkpoints[0].ID + "]"
		}
		desc = append(desc, d)
	}
	if strings.Join(desc, ",") != "ask 1,ask 2(rewound)[c2],ask 3(rewound),again" {
		t.Fatalf("turns: %v", desc)
	}
	var out bytes.Buffer
	if err := s.ExportSession(&out, sess.ID); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 8 || !strings.Contains(lines[6], `"type":"rewind"`) || !strings.Contains(lines[7], "again") {
		t.Fatalf("export:\n%s", out.String())
	}
	var rw struct{ Rewind Rewind }
	if err := json.Unmarshal([]byte(lines[6]), &rw); err != nil || rw.Rewind.ToTurn != 2 || rw.Rewind.LogSeq != 6 {
		t.Fatalf("rewind line: %s %v", lines[6], err)
	}
}

func TestRewindBeforeFirstTurnContinuesEmpty(t *testing.T) {
	s := tempStore(t)
	sess := mustCreate(t, s, &Session{Cwd: "/p"})
	s.AppendTurnMessages(sess.ID, 1, turnMsgs(1)...)
	if _, err := s.RecordRewind(sess.ID, Rewind{ToTurn: 1, Conversation: true}); err != nil {
		t.Fatal(err)
	}
	got, err := s.ResumeMessages(sess.ID)
	if err != nil || len(got) != 0 {
		t.Fatalf("resume: %v %v", got, err)
	}
	all, _ := s.Messages(sess.ID)
	if len(all) != 2 {
		t.Fatalf("the log lost messages: %d", len(all))
	}
	if _, err := s.RecordRewind(sess.ID, Rewind{ToTurn: 0}); err == nil {
		t.Fatal("turn 0 accepted")
	}
}

func TestRewindIntoCompactedTurnsDropsSnapshot(t *testing.T) {
	s := tempStore(t)
	sess := mustCreate(t, s, &Session{Cwd: "/p"})
	for n := 1; n <= 2; n++ {
		s.AppendTurnMessages(sess.ID, n, turnMsgs(n)...)
	}
	if err := s.SaveSnapshot(sess.ID, []providers.Message{{Role: providers.RoleUser, Content: "summary"}}); err != nil {
		t.Fatal(err)
	}
	s.AppendTurnMessages(sess.ID, 3, turnMsgs(3)...)
	// Rewinding turn 3 only keeps the snapshot.
	if _, err := s.RecordRewind(sess.ID, Rewind{ToTurn: 3, Conversation: true}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.ResumeMessages(sess.ID); contents(got) != "summary" {
		t.Fatalf("resume: %q", contents(got))
	}
	// Rewinding into what the snapshot summarised drops it.
	if _, err := s.RecordRewind(sess.ID, Rewind{ToTurn: 2, Conversation: true}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.ResumeMessages(sess.ID); contents(got) != "ask 1|answer 1" {
		t.Fatalf("resume: %q", contents(got))
	}
}

func TestCodeOnlyRewindKeepsHistory(t *testing.T) {
	s := tempStore(t)
	sess := mustCreate(t, s, &Session{Cwd: "/p"})
	s.AppendTurnMessages(sess.ID, 1, turnMsgs(1)...)
	s.RecordRewind(sess.ID, Rewind{ToTurn: 1, Code: true})
	if got, _ := s.ResumeMessages(sess.ID); len(got) != 2 {
		t.Fatalf("code-only rewind shortened the history: %v", got)
	}
	if err := s.AddCheckpoint(sess.ID, CheckpointRecord{Turn: 1, Kind: CheckpointBefore, ID: "c1"}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteSession(sess.ID); err != nil {
		t.Fatal(err)
	}
	// Nothing of the deleted session's rewind data shows under a new
	// session with its id.
	mustCreate(t, s, &Session{ID: sess.ID})
	rws, err := s.Rewinds(sess.ID)
	if err != nil || len(rws) != 0 {
		t.Fatalf("rewinds of a deleted session: %v %v", rws, err)
	}
	if cps, err := s.Checkpoints(sess.ID); err != nil || len(cps) != 0 {
		t.Fatalf("checkpoints of a deleted session: %v %v", cps, err)
	}
}
