package app

import (
	"encoding/json"
	"strings"
	"testing"

	"talaria/persist"
	"talaria/providers"
)

// TestSessionStoreMasksEveryWrite tries each way the loop writes messages
// through the session store (append, turn end, compaction snapshot) with
// the key in a message, and reads back what resume would load.
func TestSessionStoreMasksEveryWrite(t *testing.T) {
	const key = "sk-proj-abcdefghijklmnop0123456789"
	st, err := OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	rec := &persist.Session{Title: "masked", Cwd: t.TempDir()}
	if err := st.CreateSession(rec); err != nil {
		t.Fatal(err)
	}
	ss := &sessionStore{Store: st, m: providers.NewMasker(key)}
	msg := func(text string) providers.Message {
		return providers.Message{Role: providers.RoleUser, Content: text + " my key is " + key}
	}
	if err := ss.AppendMessages(rec.ID, 1, msg("appended")); err != nil {
		t.Fatal(err)
	}
	if err := ss.SaveTurnEnd(rec.ID, 1, []providers.Message{msg("turn end")}, 1, providers.Usage{}, 0); err != nil {
		t.Fatal(err)
	}
	if err := ss.SaveSnapshot(rec.ID, []providers.Message{msg("snapshot")}); err != nil {
		t.Fatal(err)
	}
	all, err := st.Messages(rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	resumed, err := st.ResumeMessages(rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(append(all, resumed...))
	if strings.Contains(string(raw), key) {
		t.Fatalf("a stored message holds the key:\n%s", raw)
	}
	if !strings.Contains(string(raw), "snapshot my key is") {
		t.Fatalf("resume does not read the snapshot:\n%s", raw)
	}
}
