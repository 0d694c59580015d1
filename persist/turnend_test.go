package persist

import (
	"path/filepath"
	"testing"

	"talaria/providers"
)

// SaveTurnEnd writes a turn's last messages and its usage together, with
// the same effect as AppendMessages followed by AddUsageCost.
func TestSaveTurnEndAppendsAndCounts(t *testing.T) {
	st, err := Open(filepath.Join(t.TempDir(), "state.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	sess := &Session{Cwd: "/w", Provider: "openai", Model: "gpt-4.1"}
	if err := st.CreateSession(sess); err != nil {
		t.Fatal(err)
	}
	if err := st.AppendMessages(sess.ID, providers.Message{Role: providers.RoleUser, Content: "hi"}); err != nil {
		t.Fatal(err)
	}
	u := providers.Usage{InputTokens: 100, OutputTokens: 7, CacheReadTokens: 3}
	answer := providers.Message{Role: providers.RoleAssistant, Content: "hello"}
	if err := st.SaveTurnEnd(sess.ID, []providers.Message{answer}, 2, u, 0.25); err != nil {
		t.Fatal(err)
	}
	if err := st.SaveTurnEnd(sess.ID, nil, 0, providers.Usage{}, 0); err != nil {
		t.Fatalf("nothing to save: %v", err)
	}
	got, err := st.GetSession(sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.MessageCount != 2 || got.APICallCount != 2 || got.InputTokens != 100 || got.OutputTokens != 7 ||
		got.CacheReadTokens != 3 || got.EstimatedCostUSD != 0.25 {
		t.Errorf("session counters: %+v", got)
	}
	msgs, err := st.Messages(sess.ID)
	if err != nil || len(msgs) != 2 || msgs[1].Content != "hello" {
		t.Fatalf("messages %+v, %v", msgs, err)
	}
	if err := st.SaveTurnEnd("no-such-session", []providers.Message{answer}, 1, u, 0); err == nil {
		t.Error("saving into a missing session succeeded")
	}
}
