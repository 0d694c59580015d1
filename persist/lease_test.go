package persist

import (
	"errors"
	"path/filepath"
	"testing"
	"time"
)

func TestLeaseOneWriter(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "state.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	live := map[int]bool{1: true, 2: true}
	alive := func(l Lease) bool { return live[l.PID] }
	a := Lease{PID: 1, Start: 10, Since: time.Unix(100, 5).UTC()}
	b := Lease{PID: 2, Start: 20, Since: time.Unix(200, 0).UTC()}
	if err := s.AcquireLease("s1", a, alive); err != nil {
		t.Fatal(err)
	}
	var busy *BusyError
	if err := s.AcquireLease("s1", b, alive); !errors.As(err, &busy) || busy.Holder.PID != 1 {
		t.Fatalf("second writer: %v", err)
	}
	if got, _ := s.Leases(alive); len(got) != 1 || got["s1"].PID != 1 {
		t.Fatalf("leases %v", got)
	}
	// The same process opening the session again takes it; the older
	// taking's release then leaves the newer one in place.
	a2 := a
	a2.Since = a.Since.Add(time.Second)
	if err := s.AcquireLease("s1", a2, alive); err != nil {
		t.Fatal(err)
	}
	if err := s.ReleaseLease("s1", a); err != nil {
		t.Fatal(err)
	}
	if err := s.AcquireLease("s1", b, alive); !errors.As(err, &busy) {
		t.Fatalf("the newer lease was released by the older one: %v", err)
	}
	// A dead holder's lease is taken over, and a dead lease is not busy.
	live[1] = false
	if got, _ := s.Leases(alive); len(got) != 0 {
		t.Fatalf("dead lease listed: %v", got)
	}
	if err := s.AcquireLease("s1", b, alive); err != nil {
		t.Fatalf("take over: %v", err)
	}
	if err := s.ReleaseLease("s1", b); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Leases(alive); len(got) != 0 {
		t.Fatalf("after release: %v", got)
	}
}

// TestCreateLeasedSessionIsBusyAtOnce: a session created with a lease is
// never free for another live process, and the lease is the creator's.
func TestCreateLeasedSessionIsBusyAtOnce(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "state.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	alive := func(Lease) bool { return true }
	me := Lease{PID: 1, Start: 10, Since: time.Unix(100, 0).UTC()}
	sess := &Session{Cwd: "/w", Model: "m"}
	if err := s.CreateLeasedSession(sess, me); err != nil || sess.ID == "" {
		t.Fatalf("create: %v %q", err, sess.ID)
	}
	var busy *BusyError
	if err := s.AcquireLease(sess.ID, Lease{PID: 2, Start: 20}, alive); !errors.As(err, &busy) || busy.Holder.PID != 1 {
		t.Fatalf("another writer took the new session: %v", err)
	}
	if got, err := s.GetSession(sess.ID); err != nil || got.Cwd != "/w" {
		t.Fatalf("session %v %v", got, err)
	}
	if err := s.CreateLeasedSession(&Session{ID: sess.ID}, me); err == nil {
		t.Fatal("an id in use was created again")
	}
}
