package persist

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	bolt "go.etcd.io/bbolt"

	"talaria/providers"
)

// rawChunkBytes is the size a chunk of copied messages aims at. Decoding
// drops each chunk as soon as its messages are decoded, so a long
// session's raw JSON and its decoded messages are never both held whole:
// the peak is about the larger of the two, not their sum.
const rawChunkBytes = 1 << 20

// rawEntries are stored messages copied out of a transaction, to be
// decoded after it, in chunks of about rawChunkBytes.
type rawEntries struct {
	chunks []rawChunk
	n      int // messages in all
}

// rawChunk is consecutive messages: message first+j is
// data[ends[j-1]:ends[j]], with seq seqs[j].
type rawChunk struct {
	data  []byte
	ends  []int
	seqs  []uint64
	first int
}

// copyEntries copies the messages from key k (a key of c's bucket, or nil
// for none) to the end of the bucket.
func (s *Store) copyEntries(tx *bolt.Tx, id string, c *bolt.Cursor, k []byte) (rawEntries, error) {
	return s.copyEntriesN(tx, id, c, k, -1)
}

// copyEntriesN copies at most limit messages (all when limit < 0) from
// key k (a key of c's bucket, or nil for none) on.
func (s *Store) copyEntriesN(tx *bolt.Tx, id string, c *bolt.Cursor, k []byte, limit int) (rawEntries, error) {
	var r rawEntries
	if k == nil || limit == 0 {
		return r, nil
	}
	// Size the chunks first: growing a multi-megabyte slice costs more
	// than walking the cursor twice. Keys (ascending 8-byte seqs) and
	// sizes (within the file) are checked on the way, so that a damaged
	// page fails fast instead of yielding garbage.
	type span struct{ bytes, count int }
	var spans []span
	size := int64(0)
	var prev uint64
	seen := 0
	for k, v := c.Seek(k); k != nil && seen != limit; k, v = c.Next() {
		seen++
		size += int64(len(v))
		if len(k) != docKeySize || seqFromKey(k) <= prev || size > tx.Size() {
			return rawEntries{}, s.damaged(fmt.Sprintf("message %x of session %s is unreadable", k, id), nil)
		}
		prev = seqFromKey(k)
		if len(spans) == 0 || (spans[len(spans)-1].bytes+len(v) > rawChunkBytes && spans[len(spans)-1].count > 0) {
			spans = append(spans, span{})
		}
		spans[len(spans)-1].bytes += len(v)
		spans[len(spans)-1].count++
	}
	r.chunks = make([]rawChunk, len(spans))
	for i, sp := range spans {
		r.chunks[i] = rawChunk{data: make([]byte, 0, sp.bytes), ends: make([]int, 0, sp.count), seqs: make([]uint64, 0, sp.count), first: r.n}
		r.n += sp.count
	}
	ci, copied := 0, 0
	for k, v := c.Seek(k); k != nil && copied != r.n; k, v = c.Next() {
		copied++
		ch := &r.chunks[ci]
		if len(ch.ends) == cap(ch.ends) {
			ci++
			ch = &r.chunks[ci]
		}
		ch.data = append(ch.data, v...)
		ch.ends = append(ch.ends, len(ch.data))
		ch.seqs = append(ch.seqs, seqFromKey(k))
	}
	return r, nil
}

// decodeRaw decodes copied messages, chunks in parallel for a long
// session, handing message i (of r.n) to put; each chunk's bytes are
// released once decoded. put may be called from several goroutines, for
// distinct i.
func (s *Store) decodeRaw(id string, r *rawEntries, put func(i int, seq uint64, m *storedMessage)) error {
	const minMessages = 512 // per worker, for a second worker to pay
	workers := max(1, min(runtime.GOMAXPROCS(0), r.n/minMessages, len(r.chunks)))
	var next atomic.Int64
	errs := make([]error, workers)
	work := func(w int) {
		for {
			ci := int(next.Add(1)) - 1
			if ci >= len(r.chunks) {
				return
			}
			ch := &r.chunks[ci]
			start := 0
			for j, end := range ch.ends {
				var m storedMessage
				if err := json.Unmarshal(ch.data[start:end], &m); err != nil {
					errs[w] = s.damaged(fmt.Sprintf("message %d of session %s is unreadable", ch.seqs[j], id), err)
					next.Store(int64(len(r.chunks))) // stop the others early
					return
				}
				put(ch.first+j, ch.seqs[j], &m)
				start = end
			}
			*ch = rawChunk{} // the decoded strings are copies: drop the bytes
		}
	}
	if workers == 1 {
		work(0)
		return errs[0]
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() { work(w) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// decodeEntries decodes copied messages as entries.
func (s *Store) decodeEntries(id string, r *rawEntries) ([]Entry, error) {
	out := make([]Entry, r.n)
	err := s.decodeRaw(id, r, func(i int, seq uint64, m *storedMessage) {
		out[i] = Entry{Seq: seq, Message: m.Message, Tokens: m.TokenCount, Turn: m.Turn}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// decodeMessages decodes copied messages into out, which must have room
// for r.n of them.
func (s *Store) decodeMessages(id string, r *rawEntries, out []providers.Message) error {
	return s.decodeRaw(id, r, func(i int, _ uint64, m *storedMessage) { out[i] = m.Message })
}

// parallelChunks runs fn over [0, n) split among the available CPUs when n
// is large enough to be worth it, and returns the first error.
func parallelChunks(n int, fn func(lo, hi int) error) error {
	const minChunk = 512
	workers := min(runtime.GOMAXPROCS(0), n/minChunk)
	if workers <= 1 {
		return fn(0, n)
	}
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := n*w/workers, n*(w+1)/workers
		wg.Go(func() { errs[w] = fn(lo, hi) })
	}
	wg.Wait()
	return errors.Join(errs...)
}
