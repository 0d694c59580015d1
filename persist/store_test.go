package persist

import (
	"crypto/rand"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"talaria/providers"
)

func TestOpenCreatesDirAndSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", "state.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Path() != path {
		t.Fatalf("Path() = %q", s.Path())
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.View(func(tx *bolt.Tx) error {
		meta := tx.Bucket([]byte("meta"))
		if meta == nil || string(meta.Get([]byte("schema_version"))) != fmt.Sprint(SchemaVersion) {
			return fmt.Errorf("no schema version %d", SchemaVersion)
		}
		for _, b := range []string{"sessions", "prompts", "messages", "index", "docs"} {
			if tx.Bucket([]byte(b)) == nil {
				return fmt.Errorf("no %s bucket", b)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestFileRemovedBetweenOperations: the store does not hold the file, so a
// user moving it aside gets a fresh store, not a crash.
func TestFileRemovedBetweenOperations(t *testing.T) {
	s := tempStore(t)
	sess := mustCreate(t, s, &Session{})
	if err := os.Rename(s.Path(), s.Path()+".bad"); err != nil {
		t.Fatal(err)
	}
	if list, err := s.ListSessions(); err != nil || len(list) != 0 {
		t.Fatalf("after move: %v %v", list, err)
	}
	if _, err := s.GetSession(sess.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("after move: %v", err)
	}
	mustCreate(t, s, &Session{})
}

func TestConcurrentStoresLoseNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	s1, err := Open(path, Options{LockTimeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	s2, err := Open(path, Options{LockTimeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	shared := mustCreate(t, s1, &Session{Cwd: "/shared"})
	const workers, each = 6, 15
	var wg sync.WaitGroup
	errs := make(chan error, workers*each*2)
	for w := range workers {
		st := []*Store{s1, s2}[w%2]
		wg.Go(func() {
			own := &Session{Cwd: fmt.Sprintf("/w%d", w)}
			if err := st.CreateSession(own); err != nil {
				errs <- err
				return
			}
			for i := range each {
				msg := providers.Message{Role: providers.RoleAssistant, Content: fmt.Sprintf("w%d-%d", w, i),
					ToolCalls: []providers.ToolCall{{ID: fmt.Sprintf("c%d-%d", w, i), Name: "t"}}}
				if err := st.AppendMessages(shared.ID, msg); err != nil {
					errs <- err
				}
				if err := st.AppendMessages(own.ID, msg); err != nil {
					errs <- err
				}
				if _, err := st.ListSessions(); err != nil { // readers interleave too
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	msgs, err := s2.Messages(shared.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != workers*each {
		t.Fatalf("shared session has %d messages, want %d", len(msgs), workers*each)
	}
	seen := map[string]int{}
	for _, m := range msgs {
		var w, i int
		if _, err := fmt.Sscanf(m.Content, "w%d-%d", &w, &i); err != nil {
			t.Fatal(err)
		}
		if i != seen[fmt.Sprint(w)] {
			t.Fatalf("worker %d: message %d out of order (want %d)", w, i, seen[fmt.Sprint(w)])
		}
		seen[fmt.Sprint(w)]++
	}
	got, _ := s1.GetSession(shared.ID)
	if got.MessageCount != workers*each || got.ToolCallCount != workers*each {
		t.Fatalf("counters %d/%d, want %d", got.MessageCount, got.ToolCallCount, workers*each)
	}
	list, _ := s1.ListSessions()
	if len(list) != workers+1 {
		t.Fatalf("%d sessions, want %d", len(list), workers+1)
	}
	for _, l := range list {
		if l.ID != shared.ID && l.MessageCount != each {
			t.Fatalf("session %s has %d messages", l.ID, l.MessageCount)
		}
	}
}

func TestLockedByAnotherHolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	s, err := Open(path, Options{LockTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	sess := mustCreate(t, s, &Session{})

	holder, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	checkLocked := func(what string, err error, start time.Time) {
		t.Helper()
		var le *LockedError
		if !errors.As(err, &le) {
			t.Fatalf("%s: %v, want a LockedError", what, err)
		}
		if waited := time.Since(start); waited < 200*time.Millisecond || waited > 2*time.Second {
			t.Fatalf("%s: gave up after %s", what, waited)
		}
		msg := err.Error()
		if !strings.Contains(msg, "state.db at "+path+" is locked by another talaria process") {
			t.Fatalf("%s: unclear message %q", what, msg)
		}
	}
	start := time.Now()
	_, err = Open(path, Options{LockTimeout: 200 * time.Millisecond})
	checkLocked("Open", err, start)
	start = time.Now()
	_, err = s.GetSession(sess.ID)
	checkLocked("GetSession", err, start)
	start = time.Now()
	err = s.AppendMessages(sess.ID, providers.Message{Role: providers.RoleUser, Content: "x"})
	checkLocked("AppendMessages", err, start)

	// Released while an operation waits: it goes through.
	done := make(chan error, 1)
	s3 := newStore(path, 3*time.Second) // Open would need the lock
	go func() { done <- s3.AppendMessages(sess.ID, providers.Message{Role: providers.RoleUser, Content: "y"}) }()
	time.Sleep(100 * time.Millisecond)
	if err := holder.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("after release: %v", err)
	}
	if _, err := Open(path, Options{LockTimeout: 200 * time.Millisecond}); err != nil {
		t.Fatalf("Open after release: %v", err)
	}
	msgs, err := s.Messages(sess.ID)
	if err != nil || len(msgs) != 1 || msgs[0].Content != "y" {
		t.Fatalf("messages after release: %v %v", msgs, err)
	}
}

// checkDamaged asserts the clear damage error.
func checkDamaged(t *testing.T, what, path string, err error) {
	t.Helper()
	var de *DamagedError
	if !errors.As(err, &de) {
		t.Fatalf("%s: %v, want a DamagedError", what, err)
	}
	want := fmt.Sprintf("move it aside and start fresh: mv %s %s.bad", path, path)
	if msg := err.Error(); !strings.Contains(msg, path) || !strings.Contains(msg, want) {
		t.Fatalf("%s: unclear message %q", what, msg)
	}
}

// bigStore makes a store whose file spans many pages.
func bigStore(t *testing.T) (*Store, string) {
	t.Helper()
	s := tempStore(t)
	sess := mustCreate(t, s, &Session{Cwd: "/x"})
	batch := make([]providers.Message, 50)
	for i := range batch {
		batch[i] = providers.Message{Role: providers.RoleTool, Content: strings.Repeat(fmt.Sprint(i), 400)}
	}
	for range 4 {
		if err := s.AppendMessages(sess.ID, batch...); err != nil {
			t.Fatal(err)
		}
	}
	return s, sess.ID
}

func TestTruncatedFile(t *testing.T) {
	for _, keep := range []int64{100, 5000, -1} {
		t.Run(fmt.Sprint(keep), func(t *testing.T) {
			s, id := bigStore(t)
			fi, err := os.Stat(s.Path())
			if err != nil {
				t.Fatal(err)
			}
			if keep < 0 {
				keep = fi.Size() / 2
			}
			if err := os.Truncate(s.Path(), keep); err != nil {
				t.Fatal(err)
			}
			_, err = Open(s.Path(), Options{})
			checkDamaged(t, "Open", s.Path(), err)
			_, err = s.Messages(id)
			checkDamaged(t, "Messages", s.Path(), err)
			_, err = s.ListSessions()
			checkDamaged(t, "ListSessions", s.Path(), err)
			err = s.AppendMessages(id, providers.Message{Role: providers.RoleUser, Content: "x"})
			checkDamaged(t, "AppendMessages", s.Path(), err)
			// The lock was released each time: the file can be moved aside
			// and a fresh store opened at once.
			if err := os.Rename(s.Path(), s.Path()+".bad"); err != nil {
				t.Fatal(err)
			}
			if _, err := Open(s.Path(), Options{LockTimeout: 100 * time.Millisecond}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestGarbageFile(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string][]byte{
		"random": func() []byte { b := make([]byte, 64<<10); _, _ = rand.Read(b); return b }(),
		"text":   []byte(strings.Repeat("this is not a database\n", 1000)),
		"short":  []byte("x"),
	} {
		path := filepath.Join(dir, name+".db")
		if err := os.WriteFile(path, content, 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Open(path, Options{LockTimeout: 100 * time.Millisecond})
		checkDamaged(t, name, path, err)
	}
}

// TestCorruptPages flips bytes past the header pages: whatever bbolt does
// with them (error or panic), the caller gets an error, never a crash.
func TestCorruptPages(t *testing.T) {
	s, id := bigStore(t)
	data, err := os.ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	for i := 2 * 4096; i < len(data); i += 7 {
		data[i] ^= 0x5a
	}
	if err := os.WriteFile(s.Path(), data, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err1 := s.Messages(id)
	_, err2 := s.ListSessions()
	err3 := s.AppendMessages(id, providers.Message{Role: providers.RoleUser, Content: "x"})
	// A second write fails as fast, even if bbolt could not release the
	// file after the first.
	start := time.Now()
	err4 := s.AppendMessages(id, providers.Message{Role: providers.RoleUser, Content: "x"})
	if time.Since(start) > time.Second {
		t.Fatalf("second write took %s", time.Since(start))
	}
	if err1 == nil && err2 == nil && err3 == nil {
		t.Fatal("corrupt pages went unnoticed")
	}
	for _, err := range []error{err1, err2, err3, err4} {
		if err != nil {
			checkDamaged(t, "corrupt", s.Path(), err)
		}
	}
	// Following the advice works within the same process.
	if err := os.Rename(s.Path(), s.Path()+".bad"); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(s.Path(), Options{LockTimeout: 100 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendMessages(id, providers.Message{Role: providers.RoleUser}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("fresh store: %v", err)
	}
}

func TestForeignAndNewerFiles(t *testing.T) {
	dir := t.TempDir()
	foreign := filepath.Join(dir, "foreign.db")
	db, err := bolt.Open(foreign, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = db.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucket([]byte("other")); return err })
	_ = db.Close()
	_, err = Open(foreign, Options{})
	checkDamaged(t, "foreign", foreign, err)
	if !strings.Contains(err.Error(), "not a talaria store") {
		t.Fatalf("foreign: %v", err)
	}

	newer := filepath.Join(dir, "newer.db")
	if _, err := Open(newer, Options{}); err != nil {
		t.Fatal(err)
	}
	db, err = bolt.Open(newer, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("meta")).Put([]byte("schema_version"), fmt.Append(nil, SchemaVersion+1))
	})
	_ = db.Close()
	_, err = Open(newer, Options{})
	if err == nil || !strings.Contains(err.Error(), "newer than this talaria understands") || !errors.Is(err, ErrNewerSchema) {
		t.Fatalf("newer schema: %v", err)
	}
}

// TestRandomDamage corrupts or truncates the file in many seeded ways: every
// operation returns (an error or not), none panics, hangs or leaves the file
// locked.
func TestRandomDamage(t *testing.T) {
	s, id := bigStore(t)
	orig, err := os.ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	for seed := range 120 {
		r := mrand.New(mrand.NewPCG(uint64(seed), 1))
		data := append([]byte(nil), orig...)
		switch seed % 3 {
		case 0:
			data = data[:r.IntN(len(data))]
		case 1: // headers and first pages
			for range 3 {
				data[r.IntN(3*4096)] ^= byte(1 + r.IntN(255))
			}
		default:
			for range 1 + r.IntN(20) {
				data[r.IntN(len(data))] ^= byte(1 + r.IntN(255))
			}
		}
		path := filepath.Join(t.TempDir(), "state.db")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		st := newStore(path, 2*time.Second)
		done := make(chan []error, 1)
		go func() {
			_, e1 := st.Messages(id)
			_, e2 := st.ListSessions()
			e3 := st.AppendMessages(id, providers.Message{Role: providers.RoleUser, Content: "x"})
			_, e4 := st.Messages(id)
			done <- []error{e1, e2, e3, e4}
		}()
		select {
		case errs := <-done:
			for _, err := range errs {
				var de *DamagedError
				if err != nil && !errors.As(err, &de) && !errors.Is(err, ErrNotFound) {
					t.Fatalf("seed %d: %v", seed, err)
				}
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("seed %d: hangs", seed)
		}
	}
}
