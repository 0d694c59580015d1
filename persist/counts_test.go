package persist

import "testing"

// TestLiveMessagesAfterRewinds: after conversation rewinds, the count a
// listing shows is the count of messages resuming the session loads, not
// every message ever logged (issue 24 defect 6: 52 msgs listed, 14
// resumed); later turns count on from it.
func TestLiveMessagesAfterRewinds(t *testing.T) {
	s := tempStore(t)
	sess := mustCreate(t, s, &Session{Cwd: "/p"})
	check := func(when string) {
		t.Helper()
		rec, err := s.GetSession(sess.ID)
		if err != nil {
			t.Fatal(err)
		}
		msgs, err := s.ResumeMessages(sess.ID)
		if err != nil {
			t.Fatal(err)
		}
		if rec.LiveMessages() != len(msgs) {
			t.Errorf("%s: listed %d messages, resume loads %d (logged %d)", when, rec.LiveMessages(), len(msgs), rec.MessageCount)
		}
	}
	for n := 1; n <= 4; n++ {
		if err := s.AppendTurnMessages(sess.ID, n, turnMsgs(n)...); err != nil {
			t.Fatal(err)
		}
	}
	check("before a rewind")
	if _, err := s.RecordRewind(sess.ID, Rewind{ToTurn: 3, Conversation: true}); err != nil {
		t.Fatal(err)
	}
	check("after the rewind to 3")
	for n := 3; n <= 5; n++ {
		if err := s.AppendTurnMessages(sess.ID, n, turnMsgs(n)...); err != nil {
			t.Fatal(err)
		}
	}
	check("after three more turns")
	if _, err := s.RecordRewind(sess.ID, Rewind{ToTurn: 2, Conversation: true}); err != nil {
		t.Fatal(err)
	}
	check("after the rewind to 2")
	if _, err := s.RecordRewind(sess.ID, Rewind{ToTurn: 1, Code: true}); err != nil {
		t.Fatal(err)
	}
	check("after a code-only rewind")
}
