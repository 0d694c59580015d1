package persist

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"talaria/providers"
)

// chunkyMessage is message i of a session whose stored JSON spans several
// rawChunkBytes chunks, one message alone bigger than a chunk.
func chunkyMessage(i int) providers.Message {
	size := 200 + (i*7919)%30_000
	if i == 77 {
		size = rawChunkBytes + rawChunkBytes/2
	}
	return providers.Message{Role: providers.RoleUser, Content: fmt.Sprintf("m%04d ", i) + strings.Repeat("x", size)}
}

// TestReadsAcrossChunks: the messages of a long session come back whole
// and in order through every reader, however the copy was chunked: all,
// the entries with their seqs, a tail starting inside a chunk, and a
// resume after a snapshot.
func TestReadsAcrossChunks(t *testing.T) {
	s := tempStore(t)
	sess := mustCreate(t, s, &Session{Cwd: "/x"})
	const n = 400
	var want []providers.Message
	for i := range n {
		want = append(want, chunkyMessage(i))
	}
	if err := s.AppendMessages(sess.ID, want...); err != nil {
		t.Fatal(err)
	}
	same := func(what string, got, want []providers.Message) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %d messages, want %d", what, len(got), len(want))
		}
		for i := range got {
			if got[i].Content != want[i].Content {
				t.Fatalf("%s: message %d is %.12q, want %.12q", what, i, got[i].Content, want[i].Content)
			}
		}
	}
	got, err := s.Messages(sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	same("Messages", got, want)
	entries, err := s.Entries(sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range entries {
		if e.Seq != uint64(i+1) || e.Message.Content != want[i].Content {
			t.Fatalf("entry %d: seq %d, %.12q", i, e.Seq, e.Message.Content)
		}
	}
	tail, err := s.MessagesTail(sess.ID, 333)
	if err != nil {
		t.Fatal(err)
	}
	same("MessagesTail", tail, want[n-333:])
	if err := s.SaveSnapshot(sess.ID, want[:3]); err != nil {
		t.Fatal(err)
	}
	more := []providers.Message{chunkyMessage(n), chunkyMessage(77)}
	if err := s.AppendMessages(sess.ID, more...); err != nil {
		t.Fatal(err)
	}
	resumed, err := s.ResumeMessages(sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	same("ResumeMessages", resumed, append(append([]providers.Message(nil), want[:3]...), more...))
}

// TestDecodeDropsEachChunk: decoding releases each chunk's raw bytes once
// its messages are decoded, so the raw copy and the decoded messages of a
// long session are never both held whole (issue 31: the single arena of
// raw JSON stayed referenced until the last message was decoded).
func TestDecodeDropsEachChunk(t *testing.T) {
	s := tempStore(t)
	sess := mustCreate(t, s, &Session{Cwd: "/x"})
	for i := range 300 {
		if err := s.AppendMessages(sess.ID, chunkyMessage(i)); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := s.readRaw(sess.ID, -1)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw.chunks) < 3 || raw.n != 300 {
		t.Fatalf("%d messages in %d chunks: want 300 in several", raw.n, len(raw.chunks))
	}
	held := make([]int, len(raw.chunks)) // chunks still holding bytes when message i is put
	seen := 0
	err = s.decodeRaw(sess.ID, &raw, func(i int, _ uint64, m *storedMessage) {
		seen++
		if i == raw.n-1 {
			for c := range raw.chunks {
				if raw.chunks[c].data != nil {
					held[c] = 1
				}
			}
		}
	})
	if err != nil || seen != 300 {
		t.Fatalf("decoded %d: %v", seen, err)
	}
	sum := 0
	for _, h := range held {
		sum += h
	}
	// Decoding the last message, at most the chunks still being decoded
	// (one per worker) hold bytes.
	if limit := min(len(raw.chunks), runtimeWorkers()); sum > limit {
		t.Fatalf("%d of %d chunks still held their bytes at the last message (at most %d workers)", sum, len(raw.chunks), limit)
	}
	for c := range raw.chunks {
		if raw.chunks[c].data != nil {
			t.Fatalf("chunk %d kept its bytes after decoding", c)
		}
	}
}

// TestDamagedMessageInALaterChunk: a message that does not decode, past
// the first chunk, is a DamagedError naming its seq.
func TestDamagedMessageInALaterChunk(t *testing.T) {
	s := tempStore(t)
	sess := mustCreate(t, s, &Session{Cwd: "/x"})
	for i := range 200 {
		if err := s.AppendMessages(sess.ID, chunkyMessage(i)); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := s.readRaw(sess.ID, -1)
	if err != nil {
		t.Fatal(err)
	}
	last := &raw.chunks[len(raw.chunks)-1]
	last.data[0] = '!' // the chunk's first message
	err = s.decodeRaw(sess.ID, &raw, func(int, uint64, *storedMessage) {})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("message %d of session", last.seqs[0])) {
		t.Fatalf("err = %v", err)
	}
}

// runtimeWorkers is how many goroutines decodeRaw may use.
func runtimeWorkers() int { return max(1, runtime.GOMAXPROCS(0)) }
