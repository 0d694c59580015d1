package persist

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"
)

func TestSpansPerTurnLatestAndDelete(t *testing.T) {
	s := tempStore(t)
	rec := &Session{Cwd: "/w", Provider: "p", Model: "m"}
	if err := s.CreateSession(rec); err != nil {
		t.Fatal(err)
	}
	if raw, turn, err := s.Spans(rec.ID, 0); err != nil || raw != nil || turn != 0 {
		t.Fatalf("a session without span logs: %q %d %v", raw, turn, err)
	}
	for _, n := range []int{1, 2, 10} {
		if err := s.SaveSpans(rec.ID, n, json.RawMessage(fmt.Sprintf(`{"turn":%d}`, n))); err != nil {
			t.Fatal(err)
		}
	}
	if raw, turn, err := s.Spans(rec.ID, 0); err != nil || turn != 10 || string(raw) != `{"turn":10}` {
		t.Fatalf("latest: %q %d %v", raw, turn, err)
	}
	if raw, turn, err := s.Spans(rec.ID, 2); err != nil || turn != 2 || string(raw) != `{"turn":2}` {
		t.Fatalf("turn 2: %q %d %v", raw, turn, err)
	}
	if raw, _, err := s.Spans(rec.ID, 3); err != nil || raw != nil {
		t.Fatalf("turn 3: %q %v", raw, err)
	}
	if turns, err := s.SpanTurns(rec.ID); err != nil || fmt.Sprint(turns) != "[1 2 10]" {
		t.Fatalf("turns %v %v", turns, err)
	}
	if err := s.SaveSpans(rec.ID, 1, json.RawMessage(`{oops`)); err == nil {
		t.Fatal("invalid JSON saved")
	}
	if err := s.SaveSpans("nope", 1, json.RawMessage(`{}`)); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown session: %v", err)
	}
	if err := s.SaveSpans(rec.ID, 0, json.RawMessage(`{}`)); err == nil {
		t.Fatal("turn 0 saved")
	}
	// Reopening the store (a resumed session) keeps them.
	s2, err := Open(s.path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if raw, _, err := s2.Spans(rec.ID, 1); err != nil || string(raw) != `{"turn":1}` {
		t.Fatalf("after reopening: %q %v", raw, err)
	}
	if err := s.DeleteSession(rec.ID); err != nil {
		t.Fatal(err)
	}
	// The deleted session's span logs are gone from the store, not only
	// unreachable through the session.
	if err := s.view(func(tx *bolt.Tx) error {
		if sessionSpans(tx, rec.ID) != nil {
			return errors.New("the span logs of a deleted session are still stored")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	other := &Session{Cwd: "/w"}
	if err := s.CreateSession(other); err != nil {
		t.Fatal(err)
	}
	if turns, err := s.SpanTurns(other.ID); err != nil || len(turns) != 0 {
		t.Fatalf("%v %v", turns, err)
	}
}

// BenchmarkSaveSpans is the end-of-turn cost of keeping a span log (one
// committed transaction).
func BenchmarkSaveSpans(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "state.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	rec := &Session{Cwd: "/w"}
	if err := s.CreateSession(rec); err != nil {
		b.Fatal(err)
	}
	raw := json.RawMessage(`{"version":1,"spans":[{"kind":"tool","name":"read_file","start_ms":1.5,"dur_ms":3}]}`)
	b.ResetTimer()
	for i := range b.N {
		if err := s.SaveSpans(rec.ID, i+1, raw); err != nil {
			b.Fatal(err)
		}
	}
}
