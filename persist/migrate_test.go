package persist

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"talaria/providers"
)

// v1Message is a message as schema version 1 stored it.
type v1Message struct {
	session string
	ts      int64
	json    string
}

// writeV1Store builds a schema-version-1 file by hand, with the v1 layout:
// meta, sessions (JSON records), prompts, and messages as one nested bucket
// per session keyed by big-endian seq. Buckets listed in skip are left out
// (v1 created some lazily).
func writeV1Store(t *testing.T, path string, sessions map[string]string, prompts map[string]string, msgs []v1Message, skip ...string) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(tx *bolt.Tx) error {
		create := func(name string) *bolt.Bucket {
			for _, s := range skip {
				if s == name {
					return nil
				}
			}
			b, err := tx.CreateBucket([]byte(name))
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
		meta := create("meta")
		if err := meta.Put([]byte("schema_version"), []byte("1")); err != nil {
			return err
		}
		sb, pb, mb := create("sessions"), create("prompts"), create("messages")
		for id, rec := range sessions {
			if err := sb.Put([]byte(id), []byte(rec)); err != nil {
				return err
			}
		}
		for id, p := range prompts {
			if pb == nil {
				return errors.New("prompts without a prompts bucket")
			}
			if err := pb.Put([]byte(id), []byte(p)); err != nil {
				return err
			}
		}
		for _, m := range msgs {
			if mb == nil {
				return errors.New("messages without a messages bucket")
			}
			b, err := mb.CreateBucketIfNotExists([]byte(m.session))
			if err != nil {
				return err
			}
			seq, _ := b.NextSequence()
			k := make([]byte, 8)
			binary.BigEndian.PutUint64(k, seq)
			if err := b.Put(k, []byte(m.json)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// v1Fixture is a small v1 store: two sessions whose messages interleave
// in time, and one without messages.
func v1Fixture(t *testing.T, skip ...string) (path string, msgs []v1Message) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "state.db")
	const a, b, c = "20260101_090000_aaaaaa", "20260102_090000_bbbbbb", "20260103_090000_cccccc"
	rec := func(id, title string, n, tools int, state string) string {
		return fmt.Sprintf(`{"id":%q,"title":%q,"cwd":"/src/p","provider":"openai","model":"gpt-5","system_prompt_state":%q,`+
			`"created_at":"2026-01-01T09:00:00Z","updated_at":"2026-01-02T10:00:00Z","message_count":%d,"tool_call_count":%d,`+
			`"api_call_count":2,"input_tokens":100,"output_tokens":20,"cache_read_tokens":0,"cache_write_tokens":0}`, id, title, state, n, tools)
	}
	msgs = []v1Message{
		{a, 1000, `{"role":"user","content":"alpha kubernetes question","timestamp":1000}`},
		{b, 2000, `{"role":"user","content":"beta kubernetes question","timestamp":2000}`},
		{a, 3000, `{"role":"assistant","content":"alpha answer","tool_calls":[{"id":"c1","name":"read_file","arguments":"{\"path\":\"k8s.yaml\"}"}],"finish_reason":"tool_calls","timestamp":3000}`},
		{b, 4000, `{"role":"assistant","content":"beta kubernetes answer","finish_reason":"stop","timestamp":4000}`},
		{a, 5000, `{"role":"tool","content":"kind: Deployment","tool_call_id":"c1","tool_name":"read_file","timestamp":5000}`},
	}
	writeV1Store(t, path, map[string]string{
		a: rec(a, "alpha", 3, 1, "present"),
		b: rec(b, "beta", 2, 0, "missing"),
		c: rec(c, "", 0, 0, "null"),
	}, map[string]string{a: "You are talaria.\nModel: gpt-5\nProvider: openai"}, msgs, skip...)
	return path, msgs
}

func TestMigrateFromV1(t *testing.T) {
	path, v1msgs := v1Fixture(t)
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = s.view(func(tx *bolt.Tx) error {
		if v := string(tx.Bucket([]byte(bucketMeta)).Get([]byte(keyVersion))); v != fmt.Sprint(SchemaVersion) {
			return fmt.Errorf("version after migration %q", v)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	verifyIndex(t, s)

	// Sessions, prompts and messages are as they were.
	a, err := s.GetSession("20260101_090000_aaaaaa")
	if err != nil {
		t.Fatal(err)
	}
	if a.Title != "alpha" || a.MessageCount != 3 || a.ToolCallCount != 1 || a.InputTokens != 100 || a.SystemPrompt == nil ||
		*a.SystemPrompt != "You are talaria.\nModel: gpt-5\nProvider: openai" || a.GitRoot != "" || a.EstimatedCostUSD != 0 {
		t.Fatalf("session a after migration: %+v", a)
	}
	if p, state, err := s.SystemPrompt("20260103_090000_cccccc"); err != nil || p != nil || state != PromptNull {
		t.Fatalf("prompt state of c: %v %q %v", p, state, err)
	}
	for _, id := range []string{"20260101_090000_aaaaaa", "20260102_090000_bbbbbb"} {
		got, err := s.Messages(id)
		if err != nil {
			t.Fatal(err)
		}
		var want []providers.Message
		for _, m := range v1msgs {
			if m.session == id {
				var pm providers.Message
				if err := json.Unmarshal([]byte(m.json), &pm); err != nil {
					t.Fatal(err)
				}
				want = append(want, pm)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("messages of %s:\n got %+v\nwant %+v", id, got, want)
		}
	}

	// The index orders old messages by their time, across sessions.
	hits, err := s.SearchSessions(context.Background(), "kubernetes", 0, "")
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, h := range hits {
		order = append(order, fmt.Sprintf("%s/%d", h.Title, h.Seq))
	}
	if want := []string{"beta/2", "beta/1", "alpha/1"}; !reflect.DeepEqual(order, want) {
		t.Fatalf("order %v, want %v", order, want)
	}
	if hits, _ := s.SearchSessions(context.Background(), "k8s", 0, ""); len(hits) != 1 || hits[0].Role != "assistant" {
		t.Fatalf("tool call arguments of a migrated message: %+v", hits)
	}

	// Writing goes on where v1 left off, and the new message is newest.
	if err := s.AppendEntries("20260101_090000_aaaaaa", Entry{Message: providers.Message{Role: providers.RoleUser, Content: "more kubernetes"}, Tokens: 3}); err != nil {
		t.Fatal(err)
	}
	entries, err := s.Entries("20260101_090000_aaaaaa")
	if err != nil || len(entries) != 4 || entries[3].Seq != 4 || entries[3].Tokens != 3 || entries[0].Tokens != 0 {
		t.Fatalf("entries after migration: %+v %v", entries, err)
	}
	if got := labelsOf(t, s, "kubernetes"); got[0] != "alpha/4" {
		t.Fatalf("newest after append: %v", got)
	}
	verifyIndex(t, s)

	// A second open finds nothing to do.
	if _, err := Open(path, Options{}); err != nil {
		t.Fatal(err)
	}
	verifyIndex(t, s)
}

// labelsOf returns title/seq of every hit of a search.
func labelsOf(t *testing.T, s *Store, q string) []string {
	t.Helper()
	hits, err := s.SearchSessions(context.Background(), q, 100, "")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, h := range hits {
		out = append(out, fmt.Sprintf("%s/%d", h.Title, h.Seq))
	}
	return out
}

// TestMigrateV1MissingBuckets: a v1 file that never got its prompts and
// messages buckets upgrades too.
func TestMigrateV1MissingBuckets(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	writeV1Store(t, path, map[string]string{"20260101_090000_aaaaaa": `{"id":"20260101_090000_aaaaaa","title":"t"}`}, nil, nil, "prompts", "messages")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AppendMessages("20260101_090000_aaaaaa", providers.Message{Role: providers.RoleUser, Content: "hello"}); err != nil {
		t.Fatal(err)
	}
	if got := labelsOf(t, s, "hello"); !reflect.DeepEqual(got, []string{"t/1"}) {
		t.Fatalf("search: %v", got)
	}
	verifyIndex(t, s)
}

// TestMigrationFailureLeavesFile: a failing step rolls the whole upgrade
// back, with a clear error; steps must be consecutive.
func TestMigrationFailureLeavesFile(t *testing.T) {
	steps := migrations()
	for i, st := range steps {
		if st.to != i+2 || st.what == "" || st.run == nil {
			t.Fatalf("migration %d: %+v", i, st)
		}
	}
	if steps[len(steps)-1].to != SchemaVersion {
		t.Fatal("the last migration does not reach SchemaVersion")
	}

	path, _ := v1Fixture(t)
	s := newStore(path, time.Second)
	boom := errors.New("boom")
	run := func(steps []migration) error {
		db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		return db.Update(func(tx *bolt.Tx) error { return s.migrate(tx, 1, steps) })
	}
	err := run([]migration{
		{to: 2, what: "the real step", run: (*Store).buildIndex},
		{to: 3, what: "a failing step", run: func(*Store, *bolt.Tx) error { return boom }},
	})
	var me *MigrationError
	if !errors.As(err, &me) || !errors.Is(err, boom) || me.From != 2 || me.To != 3 ||
		!strings.Contains(err.Error(), "from version 2 to 3 (a failing step) failed, the file is unchanged") {
		t.Fatalf("failing step: %v", err)
	}
	if err := run([]migration{{to: 3, what: "skips 2", run: (*Store).buildIndex}}); err == nil ||
		!strings.Contains(err.Error(), "no migration from schema version 1 to 2") {
		t.Fatalf("gap: %v", err)
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	err = db.View(func(tx *bolt.Tx) error {
		if v := string(tx.Bucket([]byte("meta")).Get([]byte("schema_version"))); v != "1" || tx.Bucket([]byte(bucketIndex)) != nil {
			return fmt.Errorf("the failed upgrade changed the file: version %q", v)
		}
		return nil
	})
	_ = db.Close()
	if err != nil {
		t.Fatal(err)
	}
	// The real upgrade still works afterwards.
	if _, err := Open(path, Options{}); err != nil {
		t.Fatal(err)
	}
}

// TestLostIndexIsRebuilt: a current file without its index buckets gets
// them back, complete, at the next open.
func TestLostIndexIsRebuilt(t *testing.T) {
	s, ids := searchFixture(t)
	db, err := bolt.Open(s.Path(), 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error { return tx.DeleteBucket([]byte(bucketIndex)) })
	_ = db.Close()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(s.Path(), Options{}); err != nil {
		t.Fatal(err)
	}
	verifyIndex(t, s)
	if got := labels(t, s, "podman", 0, ids["deploy"]); !reflect.DeepEqual(got, []string{"m4"}) {
		t.Fatalf("after rebuild: %v", got)
	}
}

// downgradeToV2 turns a current file into the version-2 layout: no
// snapshots or todos buckets, version "2".
func downgradeToV2(t *testing.T, path string) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(tx *bolt.Tx) error {
		for _, name := range []string{bucketSnaps, bucketTodos} {
			if err := tx.DeleteBucket([]byte(name)); err != nil {
				return err
			}
		}
		return tx.Bucket([]byte(bucketMeta)).Put([]byte(keyVersion), []byte("2"))
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestMigrateFromV2: a version-2 file gains the snapshot and todo buckets
// (empty), keeps its sessions, messages and index, and the new features
// work on its old sessions.
func TestMigrateFromV2(t *testing.T) {
	s, ids := searchFixture(t)
	id := ids["deploy"]
	before, err := s.Messages(id)
	if err != nil {
		t.Fatal(err)
	}
	downgradeToV2(t, s.Path())
	s2, err := Open(s.Path(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = s2.view(func(tx *bolt.Tx) error {
		if v := string(tx.Bucket([]byte(bucketMeta)).Get([]byte(keyVersion))); v != "3" {
			return fmt.Errorf("version after migration %q", v)
		}
		for _, name := range bucketsAt(3) {
			if tx.Bucket([]byte(name)) == nil {
				return fmt.Errorf("no %s bucket after migration", name)
			}
		}
		if n := tx.Bucket([]byte(bucketSnaps)).Stats().KeyN + tx.Bucket([]byte(bucketTodos)).Stats().KeyN; n != 0 {
			return fmt.Errorf("%d keys in the new buckets", n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	verifyIndex(t, s2)
	if got, err := s2.Messages(id); err != nil || !reflect.DeepEqual(got, before) {
		t.Fatalf("messages after migration: %v", err)
	}
	checkResume(t, s2, id, before)
	if got, err := s2.Todos(id); err != nil || got != nil {
		t.Fatalf("todos after migration: %s %v", got, err)
	}
	if err := s2.SaveSnapshot(id, compacted("v3")); err != nil {
		t.Fatal(err)
	}
	if err := s2.SaveTodos(id, []byte(`[1]`)); err != nil {
		t.Fatal(err)
	}
	checkResume(t, s2, id, withoutFlags(compacted("v3")))

	// From version 1, both steps run.
	path, _ := v1Fixture(t)
	s3, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s3.SaveTodos("20260101_090000_aaaaaa", []byte(`[]`)); err != nil {
		t.Fatal(err)
	}
	if got, err := s3.ResumeMessages("20260101_090000_aaaaaa"); err != nil || len(got) != 3 {
		t.Fatalf("resume after v1 migration: %d %v", len(got), err)
	}
}

// TestLostSnapshotBucketIsRecreated: a current file missing a v3 bucket
// gets it back at the next open.
func TestLostSnapshotBucketIsRecreated(t *testing.T) {
	s := tempStore(t)
	id := mustCreate(t, s, &Session{}).ID
	db, err := bolt.Open(s.Path(), 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		if err := tx.DeleteBucket([]byte(bucketSnaps)); err != nil {
			return err
		}
		return tx.DeleteBucket([]byte(bucketIndex))
	})
	_ = db.Close()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(s.Path(), Options{}); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveSnapshot(id, nil); err != nil {
		t.Fatal(err)
	}
	verifyIndex(t, s)
}
