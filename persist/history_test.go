package persist

import (
	"fmt"
	"reflect"
	"testing"
)

// TestInputHistoryPerProjectCapped: inputs survive reopening the store,
// are kept per project, skip blanks and repeats of the newest, and are
// capped at MaxInputHistory.
func TestInputHistoryPerProjectCapped(t *testing.T) {
	s := tempStore(t)
	for _, in := range []string{"first", "second", "second", "  ", "third"} {
		if err := s.AddInput("/repo/a", in); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.AddInput("/repo/b", "other project"); err != nil {
		t.Fatal(err)
	}
	got, err := s.InputHistory("/repo/a", 0)
	if err != nil || !reflect.DeepEqual(got, []string{"first", "second", "third"}) {
		t.Fatalf("history a = %q %v", got, err)
	}
	if got, _ := s.InputHistory("/repo/a", 2); !reflect.DeepEqual(got, []string{"second", "third"}) {
		t.Fatalf("last 2 = %q", got)
	}
	if got, _ := s.InputHistory("/repo/none", 0); len(got) != 0 {
		t.Fatalf("unknown project = %q", got)
	}
	reopened := reopen(t, s)
	if got, _ := reopened.InputHistory("/repo/b", 0); !reflect.DeepEqual(got, []string{"other project"}) {
		t.Fatalf("after reopening: %q", got)
	}
	for i := range MaxInputHistory + 5 {
		if err := reopened.AddInput("/repo/c", fmt.Sprint("n", i)); err != nil {
			t.Fatal(err)
		}
	}
	got, _ = reopened.InputHistory("/repo/c", 0)
	if len(got) != MaxInputHistory || got[0] != "n5" || got[len(got)-1] != fmt.Sprint("n", MaxInputHistory+4) {
		t.Fatalf("capped history: %d entries, %q … %q", len(got), got[0], got[len(got)-1])
	}
}

// reopen opens a second Store on s's file, as a restarted process would.
func reopen(t *testing.T, s *Store) *Store {
	t.Helper()
	r, err := Open(s.path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}
