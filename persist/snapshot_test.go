package persist

import (
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"talaria/providers"
)

// numbered returns n user messages "m<first>" ... "m<first+n-1>", each
// with a fixed timestamp, so that what is read back compares equal.
func numbered(first, n int) []providers.Message {
	out := make([]providers.Message, n)
	for i := range out {
		out[i] = providers.Message{Role: providers.RoleUser, Content: fmt.Sprintf("m%d", first+i), Timestamp: int64(first + i)}
	}
	return out
}

// compacted is a snapshot's content: a summary and the kept tail.
func compacted(tag string) []providers.Message {
	sum := providers.Message{Role: providers.RoleUser, Content: "[summary " + tag + "] earlier work", Timestamp: 7}
	sum.SetFlag("_compressed", true)
	return []providers.Message{
		sum,
		{Role: providers.RoleAssistant, Content: "kept " + tag, FinishReason: providers.FinishStop, Timestamp: 8,
			ToolCalls: []providers.ToolCall{{ID: "c9", Name: "read_file", Arguments: `{"path":"a<b>.go"}`}}},
		{Role: providers.RoleTool, ToolCallID: "c9", ToolName: "read_file", Content: "1|x", Timestamp: 9},
	}
}

// withoutFlags is msgs as the store gives them back: no Internal flags.
func withoutFlags(msgs []providers.Message) []providers.Message {
	out := make([]providers.Message, len(msgs))
	for i := range msgs {
		out[i] = msgs[i]
		out[i].Internal = nil
	}
	return out
}

// concat joins message lists.
func concat(lists ...[]providers.Message) []providers.Message {
	out := []providers.Message{}
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// mustAppend appends or fails the test.
func mustAppend(t testing.TB, s *Store, id string, msgs ...providers.Message) {
	t.Helper()
	if err := s.AppendMessages(id, msgs...); err != nil {
		t.Fatal(err)
	}
}

// checkResume compares ResumeMessages with want.
func checkResume(t *testing.T, s *Store, id string, want []providers.Message) {
	t.Helper()
	got, err := s.ResumeMessages(id)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ResumeMessages:\n got %+v\nwant %+v", got, want)
	}
}

// snapshotCovers reads the covered count of the stored snapshot.
func snapshotCovers(t *testing.T, s *Store, id string) (uint64, bool) {
	t.Helper()
	var covers uint64
	var ok bool
	err := s.view(func(tx *bolt.Tx) error {
		if v := tx.Bucket([]byte(bucketSnaps)).Get([]byte(id)); v != nil {
			covers, ok = binary.BigEndian.Uint64(v), true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return covers, ok
}

func TestSnapshotResume(t *testing.T) {
	s := tempStore(t)
	id := mustCreate(t, s, &Session{Cwd: "/x"}).ID
	first := numbered(1, 10)
	mustAppend(t, s, id, first...)
	before, _ := s.GetSession(id)

	// No snapshot: the whole log.
	checkResume(t, s, id, first)

	if err := s.SaveSnapshot(id, compacted("one")); err != nil {
		t.Fatal(err)
	}
	if covers, ok := snapshotCovers(t, s, id); !ok || covers != 10 {
		t.Fatalf("covers %d %v, want 10", covers, ok)
	}
	if after, _ := s.GetSession(id); !after.UpdatedAt.Equal(before.UpdatedAt) || after.MessageCount != 10 {
		t.Fatalf("the snapshot changed the record: %+v", after)
	}
	snap1 := withoutFlags(compacted("one"))
	checkResume(t, s, id, snap1)

	// Appends after the snapshot follow it, in order; through a reopen.
	later := numbered(11, 3)
	mustAppend(t, s, id, later...)
	s2, err := Open(s.Path(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkResume(t, s2, id, concat(snap1, later))

	// The log stays complete for everything else.
	all := concat(first, later)
	if got, err := s2.Messages(id); err != nil || !reflect.DeepEqual(got, all) {
		t.Fatalf("Messages after a snapshot: %v %v", got, err)
	}
	if entries, err := s2.Entries(id); err != nil || len(entries) != 13 || entries[0].Seq != 1 {
		t.Fatalf("Entries after a snapshot: %d %v", len(entries), err)
	}
	if got := labelsOf(t, s2, "m2"); len(got) != 1 || !strings.HasSuffix(got[0], "/2") {
		t.Fatalf("search of a covered message: %v", got)
	}
	if got := labelsOf(t, s2, "summary"); len(got) != 0 {
		t.Fatalf("the snapshot is not part of the log: %v", got)
	}

	// A second snapshot replaces the first and covers what is stored now.
	if err := s2.SaveSnapshot(id, compacted("two")); err != nil {
		t.Fatal(err)
	}
	snap2 := withoutFlags(compacted("two"))
	checkResume(t, s2, id, snap2)
	if covers, _ := snapshotCovers(t, s2, id); covers != 13 {
		t.Fatalf("second snapshot covers %d, want 13", covers)
	}
	mustAppend(t, s2, id, numbered(14, 1)...)
	checkResume(t, s2, id, concat(snap2, numbered(14, 1)))

	// An empty snapshot: only what came after it.
	if err := s2.SaveSnapshot(id, nil); err != nil {
		t.Fatal(err)
	}
	checkResume(t, s2, id, []providers.Message{})
	mustAppend(t, s2, id, numbered(15, 1)...)
	checkResume(t, s2, id, numbered(15, 1))
}

// TestResumeWithoutSnapshot: with no snapshot, ResumeMessages is Messages,
// for a session with messages and for one without.
func TestResumeWithoutSnapshot(t *testing.T) {
	s := tempStore(t)
	full := mustCreate(t, s, &Session{}).ID
	mustAppend(t, s, full, sampleConversation()...)
	empty := mustCreate(t, s, &Session{}).ID
	for _, id := range []string{full, empty} {
		want, err := s.Messages(id)
		if err != nil {
			t.Fatal(err)
		}
		checkResume(t, s, id, want)
	}
	// A snapshot of a session without messages covers none.
	if err := s.SaveSnapshot(empty, compacted("e")); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, empty, numbered(1, 2)...)
	checkResume(t, s, empty, concat(withoutFlags(compacted("e")), numbered(1, 2)))

	for name, err := range map[string]error{
		"SaveSnapshot":   s.SaveSnapshot("nope", compacted("x")),
		"ResumeMessages": func() error { _, err := s.ResumeMessages("nope"); return err }(),
		"SaveTodos":      s.SaveTodos("nope", []byte(`[]`)),
		"Todos":          func() error { _, err := s.Todos("nope"); return err }(),
	} {
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("%s of a missing session: %v", name, err)
		}
	}
}

// TestSnapshotCoversAtomically: while another Store appends, snapshots
// are taken again and again. Every resume is a snapshot followed by a run
// of consecutive messages that ends with the last one stored: nothing is
// lost or doubled between the covered count and the snapshot.
func TestSnapshotCoversAtomically(t *testing.T) {
	s := tempStore(t)
	id := mustCreate(t, s, &Session{}).ID
	writer, err := Open(s.Path(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	const total = 60
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 1; i <= total; i++ {
			if err := writer.AppendMessages(id, numbered(i, 1)...); err != nil {
				t.Error(err)
				return
			}
		}
	})
	check := func(got []providers.Message, tag string) {
		t.Helper()
		if len(got) == 0 || got[0].Content != "snap "+tag {
			t.Fatalf("resume does not start with snapshot %s: %+v", tag, got)
		}
		rest := got[1:]
		covers, _ := snapshotCovers(t, s, id)
		for i, m := range rest {
			if want := fmt.Sprintf("m%d", int(covers)+1+i); m.Content != want {
				t.Fatalf("after snapshot %s (covers %d): message %d is %q, want %q", tag, covers, i, m.Content, want)
			}
		}
	}
	for k := 0; ; k++ {
		tag := fmt.Sprint(k)
		err := s.UpdateSession(id, func(*Session) {}) // interleave other writes too
		if err != nil {
			t.Fatal(err)
		}
		lo, _ := s.GetSession(id)
		if err := s.SaveSnapshot(id, []providers.Message{{Role: providers.RoleUser, Content: "snap " + tag}}); err != nil {
			t.Fatal(err)
		}
		hi, _ := s.GetSession(id)
		if covers, _ := snapshotCovers(t, s, id); int(covers) < lo.MessageCount || int(covers) > hi.MessageCount {
			t.Fatalf("snapshot %s covers %d, outside the counts %d..%d around it", tag, covers, lo.MessageCount, hi.MessageCount)
		}
		got, err := s.ResumeMessages(id)
		if err != nil {
			t.Fatal(err)
		}
		check(got, tag)
		sess, _ := s.GetSession(id)
		if sess.MessageCount == total {
			wg.Wait()
			got, err := s.ResumeMessages(id)
			if err != nil {
				t.Fatal(err)
			}
			check(got, tag)
			if covers, _ := snapshotCovers(t, s, id); int(covers)+len(got)-1 != total {
				t.Fatalf("covers %d + %d later != %d", covers, len(got)-1, total)
			}
			return
		}
	}
}

// corruptSnapshot stores raw as the session's snapshot value.
func corruptSnapshot(t *testing.T, s *Store, id string, raw []byte) {
	t.Helper()
	db, err := bolt.Open(s.Path(), 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(func(tx *bolt.Tx) error { return tx.Bucket([]byte(bucketSnaps)).Put([]byte(id), raw) }); err != nil {
		t.Fatal(err)
	}
}

// TestDamagedSnapshot: an unreadable snapshot is a *DamagedError naming
// the file, the log stays readable, and a new snapshot replaces it.
func TestDamagedSnapshot(t *testing.T) {
	s := tempStore(t)
	id := mustCreate(t, s, &Session{}).ID
	mustAppend(t, s, id, numbered(1, 4)...)
	header := func(covers uint64, body string) []byte {
		return append(binary.BigEndian.AppendUint64(nil, covers), body...)
	}
	for name, c := range map[string]struct {
		raw  []byte
		want string
	}{
		"short":     {[]byte{1, 2}, "snapshot of session " + id + " is unreadable"},
		"not JSON":  {header(2, `[{"role":"user",`), "snapshot of session " + id + " is unreadable"},
		"wrong":     {header(2, `{"role":"user"}`), "snapshot of session " + id + " is unreadable"},
		"past end":  {header(9, `[]`), "covers 9 messages but the session has 4"},
		"zero body": {header(0, ``), "snapshot of session " + id + " is unreadable"},
	} {
		corruptSnapshot(t, s, id, c.raw)
		_, err := s.ResumeMessages(id)
		checkDamaged(t, name, s.Path(), err)
		if !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%s: %v", name, err)
		}
		if got, err := s.Messages(id); err != nil || len(got) != 4 {
			t.Fatalf("%s: Messages %d %v", name, len(got), err)
		}
	}
	if err := s.SaveSnapshot(id, compacted("new")); err != nil {
		t.Fatal(err)
	}
	checkResume(t, s, id, withoutFlags(compacted("new")))
}

func TestTodos(t *testing.T) {
	s := tempStore(t)
	id := mustCreate(t, s, &Session{}).ID
	other := mustCreate(t, s, &Session{}).ID
	if got, err := s.Todos(id); err != nil || got != nil {
		t.Fatalf("no todos: %q %v", got, err)
	}
	list := []byte(`[{"id":"1","content":"write tests","status":"in_progress"},{"id":"2","content":"ship <it>","status":"pending"}]`)
	if err := s.SaveTodos(id, list); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(s.Path(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s2.Todos(id); err != nil || string(got) != string(list) {
		t.Fatalf("todos after reopen: %s %v", got, err)
	}
	if got, _ := s2.Todos(other); got != nil {
		t.Fatalf("todos leaked to another session: %s", got)
	}
	if err := s2.SaveTodos(id, []byte(`[]`)); err != nil {
		t.Fatal(err)
	}
	if got, _ := s2.Todos(id); string(got) != `[]` {
		t.Fatalf("replaced todos: %s", got)
	}
	if err := s2.SaveTodos(id, []byte(`[{"id":`)); err == nil || !strings.Contains(err.Error(), "not valid JSON") {
		t.Fatalf("invalid todos: %v", err)
	}
	if got, _ := s2.Todos(id); string(got) != `[]` {
		t.Fatalf("a rejected save changed the todos: %s", got)
	}
	if err := s2.SaveTodos(id, nil); err != nil {
		t.Fatal(err)
	}
	if got, err := s2.Todos(id); err != nil || got != nil {
		t.Fatalf("cleared todos: %q %v", got, err)
	}

	// Damaged: a clear error, not garbage.
	db, err := bolt.Open(s.Path(), 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error { return tx.Bucket([]byte(bucketTodos)).Put([]byte(other), []byte("{oops")) })
	_ = db.Close()
	if err != nil {
		t.Fatal(err)
	}
	_, err = s2.Todos(other)
	checkDamaged(t, "todos", s.Path(), err)
}

// TestDeleteSessionDropsSnapshotAndTodos: nothing of a deleted session
// survives, not even under a session that reuses its id.
func TestDeleteSessionDropsSnapshotAndTodos(t *testing.T) {
	s := tempStore(t)
	id := mustCreate(t, s, &Session{}).ID
	keep := mustCreate(t, s, &Session{}).ID
	for _, sid := range []string{id, keep} {
		mustAppend(t, s, sid, numbered(1, 3)...)
		if err := s.SaveSnapshot(sid, compacted(sid)); err != nil {
			t.Fatal(err)
		}
		if err := s.SaveTodos(sid, []byte(`["`+sid+`"]`)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.DeleteSession(id); err != nil {
		t.Fatal(err)
	}
	if _, ok := snapshotCovers(t, s, id); ok {
		t.Fatal("the snapshot survived DeleteSession")
	}
	mustCreate(t, s, &Session{ID: id})
	if got, err := s.Todos(id); err != nil || got != nil {
		t.Fatalf("todos of a deleted session: %s %v", got, err)
	}
	mustAppend(t, s, id, numbered(1, 1)...)
	checkResume(t, s, id, numbered(1, 1))

	checkResume(t, s, keep, withoutFlags(compacted(keep)))
	if got, _ := s.Todos(keep); string(got) != `["`+keep+`"]` {
		t.Fatalf("todos of the other session: %s", got)
	}
}
