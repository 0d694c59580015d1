package persist

import (
	"context"
	"fmt"
	mrand "math/rand/v2"
	"os"
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

// BenchmarkResumeWithSnapshot resumes a 10,000-message session that has a
// 50-message compaction snapshot and 20 messages after it: compare with
// BenchmarkMessages10k, which loads the whole log.
func BenchmarkResumeWithSnapshot(b *testing.B) {
	s := tempStore(b)
	sess := mustCreate(b, s, &Session{Cwd: "/x"})
	const total, batch, snap, after = 10_000, 500, 50, 20
	msgs := make([]providers.Message, batch)
	for start := 0; start < total; start += batch {
		for i := range msgs {
			msgs[i] = benchMessage(start + i)
		}
		if err := s.AppendMessages(sess.ID, msgs...); err != nil {
			b.Fatal(err)
		}
	}
	compacted := make([]providers.Message, snap)
	for i := range compacted {
		compacted[i] = benchMessage(total - snap + i)
	}
	if err := s.SaveSnapshot(sess.ID, compacted); err != nil {
		b.Fatal(err)
	}
	for i := range after {
		if err := s.AppendMessages(sess.ID, benchMessage(total+i)); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		got, err := s.ResumeMessages(sess.ID)
		if err != nil {
			b.Fatal(err)
		}
		if len(got) != snap+after {
			b.Fatalf("resumed %d messages", len(got))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
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

// corpus generates realistic session text: English prose, identifiers,
// paths and log lines, word frequencies following a Zipf law over a
// vocabulary of common words and made-up identifiers.
type corpus struct {
	rng   *mrand.Rand
	zipf  *mrand.Zipf
	vocab []string
}

// newCorpus returns a seeded generator.
func newCorpus(seed uint64) *corpus {
	common := strings.Fields(`the to of and a in is it that for you this on with be as are not
		file error function test code we can if at from will have use by or an return go func
		main package import string value type build run fix change add check should need
		config server request response context handler session message index search data
		update read write path line output input result call tool model user agent loop
		docker kubernetes deploy container image service port connection timeout retry
		database migration query table schema column cache token stream provider api`)
	syll := strings.Fields("ka lo mi ne ru ta vo zi pe sa do fu gi ha ju ke ly mo nu po qi ro su ti")
	vocab := append([]string(nil), common...)
	for i := 0; len(vocab) < 30_000; i++ {
		w := syll[i%len(syll)] + syll[(i/len(syll))%len(syll)] + syll[(i/len(syll)/len(syll))%len(syll)]
		switch i % 5 {
		case 0:
			w += "er"
		case 1:
			w = "get" + strings.ToUpper(w[:1]) + w[1:]
		case 2:
			w += fmt.Sprint(i % 97)
		}
		vocab = append(vocab, w)
	}
	rng := mrand.New(mrand.NewPCG(seed, 99))
	return &corpus{rng: rng, zipf: mrand.NewZipf(rng, 1.07, 2, uint64(len(vocab)-1)), vocab: vocab}
}

// words returns n words of text.
func (c *corpus) words(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			switch c.rng.IntN(12) {
			case 0:
				b.WriteString(".\n")
			case 1:
				b.WriteString(", ")
			default:
				b.WriteByte(' ')
			}
		}
		b.WriteString(c.vocab[c.zipf.Uint64()])
	}
	switch c.rng.IntN(100) {
	case 0:
		b.WriteString(" connection reset by peer")
	case 1:
		b.WriteString(" migrating the schema")
	}
	return b.String()
}

// message returns message i of a session: a user request, an assistant
// step with a tool call, or a tool result (code-like, longer).
func (c *corpus) message(i int) providers.Message {
	switch i % 3 {
	case 0:
		return providers.Message{Role: providers.RoleUser, Content: c.words(10 + c.rng.IntN(30))}
	case 1:
		path := fmt.Sprintf("internal/%s/%s.go", c.vocab[c.zipf.Uint64()], c.vocab[c.zipf.Uint64()])
		return providers.Message{Role: providers.RoleAssistant, Content: c.words(15 + c.rng.IntN(60)), FinishReason: providers.FinishToolCalls,
			ToolCalls: []providers.ToolCall{{ID: fmt.Sprintf("call_%d", i), Name: "read_file", Arguments: fmt.Sprintf(`{"path":%q}`, path)}}}
	}
	var b strings.Builder
	for l := range 5 + c.rng.IntN(25) {
		fmt.Fprintf(&b, "%d|%s\n", l+1, c.words(3+c.rng.IntN(9)))
	}
	return providers.Message{Role: providers.RoleTool, ToolCallID: fmt.Sprintf("call_%d", i-1), ToolName: "read_file", Content: b.String()}
}

// buildCorpusStore fills a new store with sessions of perSession messages,
// total messages in all, committing many sessions per transaction to build
// quickly (the layout is the same as appends make). It returns the store
// and the session ids.
func buildCorpusStore(b *testing.B, total, perSession int) (*Store, []string) {
	b.Helper()
	s := tempStore(b)
	c := newCorpus(1)
	var ids []string
	now := time.Now().Add(-time.Duration(total) * time.Second)
	const sessionsPerTx = 50
	for made := 0; made < total; {
		err := s.update(func(tx *bolt.Tx) error {
			for range sessionsPerTx {
				if made >= total {
					break
				}
				sess := &Session{ID: NewSessionID(now), Cwd: "/src/project", CreatedAt: now, UpdatedAt: now}
				if err := s.putSession(tx, sess, true); err != nil {
					return err
				}
				preps := make([]prepared, min(perSession, total-made))
				for i := range preps {
					m := c.message(i)
					m.Timestamp = now.Add(time.Duration(made+i) * time.Second).UnixMilli()
					p, err := prepare(Entry{Message: m}, now)
					if err != nil {
						return err
					}
					preps[i] = p
				}
				if err := s.appendTx(tx, sess.ID, preps, now); err != nil {
					return err
				}
				ids = append(ids, sess.ID)
				made += len(preps)
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return s, ids
}

// BenchmarkSearch100k searches 100,000 messages (1,000 sessions of 100)
// with queries of each kind.
func BenchmarkSearch100k(b *testing.B) {
	start := time.Now()
	s, ids := buildCorpusStore(b, 100_000, 100)
	fi, _ := os.Stat(s.Path())
	b.Logf("built 100,000 messages in %s; state.db is %.1f MB", time.Since(start).Round(time.Millisecond), float64(fi.Size())/(1<<20))
	_ = s.view(func(tx *bolt.Tx) error {
		for _, name := range []string{bucketMessages, bucketIndex, bucketDocs} {
			st := tx.Bucket([]byte(name)).Stats()
			b.Logf("bucket %s: %d keys, %.1f MB in use", name, st.KeyN, float64(st.LeafInuse+st.BranchInuse)/(1<<20))
		}
		return nil
	})
	for _, q := range []struct{ name, query, session string }{
		{"two-common-words", "error file", ""},
		{"common-word", "the", ""},
		{"rare-word", newCorpus(1).vocab[3000], ""},
		{"phrase", `"connection reset"`, ""},
		{"prefix", "migrat*", ""},
		{"short-prefix", "k*", ""},
		{"or", "docker OR kubernetes", ""},
		{"exclude", "error -test", ""},
		{"in-session", "error", ids[len(ids)/2]},
		{"no-match", "zzzzzz", ""},
	} {
		b.Run(q.name, func(b *testing.B) {
			var n int
			for b.Loop() {
				hits, err := s.SearchSessions(context.Background(), q.query, 10, q.session)
				if err != nil {
					b.Fatal(err)
				}
				n = len(hits)
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
			b.ReportMetric(float64(n), "hits")
		})
	}
}

// BenchmarkAppend100k appends one realistic message per operation, fsynced
// and indexed, to a store that already holds 100,000 messages (where each
// append touches index pages all over a large tree), and reports messages
// per second.
func BenchmarkAppend100k(b *testing.B) {
	s, ids := buildCorpusStore(b, 100_000, 100)
	c := newCorpus(2)
	i := 0
	for b.Loop() {
		if err := s.AppendMessages(ids[i%len(ids)], c.message(i)); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

// BenchmarkMigrate100k upgrades a version-1 file of 100,000 messages: the
// cost of the first Open after an upgrade (building the index).
func BenchmarkMigrate100k(b *testing.B) {
	s, _ := buildCorpusStore(b, 100_000, 100)
	for b.Loop() {
		b.StopTimer()
		db, err := bolt.Open(s.Path(), 0o600, &bolt.Options{Timeout: time.Second})
		if err != nil {
			b.Fatal(err)
		}
		err = db.Update(func(tx *bolt.Tx) error {
			for _, name := range []string{bucketIndex, bucketDocs} {
				if err := tx.DeleteBucket([]byte(name)); err != nil {
					return err
				}
			}
			return tx.Bucket([]byte(bucketMeta)).Put([]byte(keyVersion), []byte("1"))
		})
		_ = db.Close()
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := Open(s.Path(), Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
}
