package persist

import (
	"fmt"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"talaria/providers"
)

// benchMessage is a typical mid-sized message (~0.5 KB of JSON).
func benchMessage(i int) providers.Message {
	if i%2 == 0 {
		return providers.Message{Role: providers.RoleAssistant, Content: strings.Repeat("text ", 60),
			ToolCalls: []providers.ToolCall{{ID: fmt.Sprintf("call_%d", i), Name: "read_file", Arguments: `{"path":"main.go"}`}}}
	}
	return providers.Message{Role: providers.RoleTool, ToolCallID: fmt.Sprintf("call_%d", i-1), ToolName: "read_file",
		Content: strings.Repeat("1|package main\n", 25)}
}

// BenchmarkGetSession is the per-operation cost of the open-per-call design
// for a read: open, lock, map, one read transaction, close.
func BenchmarkGetSession(b *testing.B) {
	s := tempStore(b)
	sess := mustCreate(b, s, &Session{Cwd: "/x"})
	for b.Loop() {
		if _, err := s.GetSession(sess.ID); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/op")
}

// BenchmarkHeldOpenGetSession is the same read with the file kept open: the
// difference from BenchmarkGetSession is the open/close overhead.
func BenchmarkHeldOpenGetSession(b *testing.B) {
	s := tempStore(b)
	sess := mustCreate(b, s, &Session{Cwd: "/x"})
	db, err := bolt.Open(s.Path(), 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	for b.Loop() {
		err := db.View(func(tx *bolt.Tx) error {
			_, err := s.getSession(tx, sess.ID, true)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendMessage appends one message per operation, fsynced, and
// reports messages per second.
func BenchmarkAppendMessage(b *testing.B) {
	s := tempStore(b)
	sess := mustCreate(b, s, &Session{Cwd: "/x"})
	i := 0
	for b.Loop() {
		if err := s.AppendMessages(sess.ID, benchMessage(i)); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

// BenchmarkHeldOpenAppend does the same durable append with the file kept
// open, for comparison.
func BenchmarkHeldOpenAppend(b *testing.B) {
	s := tempStore(b)
	sess := mustCreate(b, s, &Session{Cwd: "/x"})
	db, err := bolt.Open(s.Path(), 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	i := 0
	for b.Loop() {
		err := db.Update(func(tx *bolt.Tx) error {
			got, err := s.getSession(tx, sess.ID, false)
			if err != nil {
				return err
			}
			mb, err := tx.Bucket([]byte(bucketMessages)).CreateBucketIfNotExists([]byte(sess.ID))
			if err != nil {
				return err
			}
			seq, _ := mb.NextSequence()
			raw := fmt.Appendf(nil, `{"role":"tool","content":%q}`, benchMessage(i).Content)
			if err := mb.Put(seqKey(seq), raw); err != nil {
				return err
			}
			got.MessageCount++
			return s.putSession(tx, got, false)
		})
		if err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

// BenchmarkMessages10k loads a 10,000-message session.
func BenchmarkMessages10k(b *testing.B) {
	s := tempStore(b)
	sess := mustCreate(b, s, &Session{Cwd: "/x"})
	const total, batch = 10_000, 500
	msgs := make([]providers.Message, batch)
	for start := 0; start < total; start += batch {
		for i := range msgs {
			msgs[i] = benchMessage(start + i)
		}
		if err := s.AppendMessages(sess.ID, msgs...); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		got, err := s.Messages(sess.ID)
		if err != nil {
			b.Fatal(err)
		}
		if len(got) != total {
			b.Fatalf("loaded %d messages", len(got))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
}

// BenchmarkListSessions1k lists a store of 1,000 sessions (the scan that
// LatestSession and title resolution also do).
func BenchmarkListSessions1k(b *testing.B) {
	s := tempStore(b)
	db, err := bolt.Open(s.Path(), 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		b.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		now := time.Now().UTC()
		for i := range 1000 {
			sess := &Session{ID: fmt.Sprintf("20260101_000000_%06x", i), Title: "a session title of some length",
				Cwd: "/home/user/src/project", Provider: "openai", Model: "gpt-5", CreatedAt: now, UpdatedAt: now, MessageCount: i}
			if err := s.putSession(tx, sess, true); err != nil {
				return err
			}
		}
		return nil
	})
	_ = db.Close()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if list, err := s.ListSessions(); err != nil || len(list) != 1000 {
			b.Fatal(len(list), err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/op")
}
