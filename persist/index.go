package persist

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"

	bolt "go.etcd.io/bbolt"

	"talaria/providers"
)

// The full-text index (schema version 2) is two buckets kept in step with
// the messages by the transaction that appends or deletes them:
//
//	docs   big-endian uint64 doc id → uvarint message seq, then the session id
//	index  token 0x00 big-endian uint64 base → posting block
//
// Every stored message is one document; doc ids come from the docs bucket's
// sequence, so they grow in commit order and "newest first" is "highest doc
// id first". A token's posting list is the ascending list of the documents
// containing it, cut into blocks of at most maxBlockBytes: a block's value is
// uvarint deltas, the first one from the base in its key, each later one from
// the previous id. Appending rewrites only the token's last block; a common
// word costs about one byte per message. Each document is also posted under
// the session's own token (sessionTokenPrefix + id), which lists a session's
// documents for deletion and restricts a search to one session.

// maxBlockBytes bounds one posting block.
const maxBlockBytes = 512

// sessionTokenPrefix starts the pseudo-token of a session; tokenize never
// produces control characters, so it cannot collide with a word.
const sessionTokenPrefix = "\x01s:"

// docKeySize is the length of a doc key and of a block key's base.
const docKeySize = 8

// sessionToken is the pseudo-token listing a session's documents.
func sessionToken(id string) string { return sessionTokenPrefix + id }

// blockKey is the key of the block of tok whose base is base.
func blockKey(tok string, base uint64) []byte {
	k := make([]byte, len(tok)+1+docKeySize)
	copy(k, tok)
	binary.BigEndian.PutUint64(k[len(tok)+1:], base)
	return k
}

// blockOf returns the base of k if k is a block key of tok.
func blockOf(k []byte, tok string) (uint64, bool) {
	if len(k) != len(tok)+1+docKeySize || k[len(tok)] != 0 || string(k[:len(tok)]) != tok {
		return 0, false
	}
	return binary.BigEndian.Uint64(k[len(tok)+1:]), true
}

// splitBlockKey returns the token and base of any block key.
func splitBlockKey(k []byte) (string, uint64, bool) {
	n := len(k) - 1 - docKeySize
	if n < 0 || k[n] != 0 {
		return "", 0, false
	}
	return string(k[:n]), binary.BigEndian.Uint64(k[n+1:]), true
}

// errBadBlock marks an undecodable posting block.
var errBadBlock = errors.New("bad posting block")

// decodeBlock appends the doc ids of a block to dst.
func decodeBlock(dst []uint64, base uint64, v []byte) ([]uint64, error) {
	if len(v) > maxBlockBytes {
		return dst, errBadBlock
	}
	id := base
	for first := true; len(v) > 0; first = false {
		d, n := binary.Uvarint(v)
		if n <= 0 || (d == 0 && !first) {
			return dst, errBadBlock
		}
		id += d
		dst = append(dst, id)
		v = v[n:]
	}
	return dst, nil
}

// lastOfBlock returns the last doc id of a non-empty block.
func lastOfBlock(base uint64, v []byte) (uint64, error) {
	id := base
	if len(v) == 0 {
		return 0, errBadBlock
	}
	for first := true; len(v) > 0; first = false {
		d, n := binary.Uvarint(v)
		if n <= 0 || (d == 0 && !first) {
			return 0, errBadBlock
		}
		id += d
		v = v[n:]
	}
	return id, nil
}

// encodeBlock encodes ascending ids against base.
func encodeBlock(base uint64, ids []uint64) []byte {
	out := make([]byte, 0, len(ids)+8)
	prev := base
	for _, id := range ids {
		out = binary.AppendUvarint(out, id-prev)
		prev = id
	}
	return out
}

// docValue encodes where a document is stored.
func docValue(seq uint64, sessionID string) []byte {
	v := binary.AppendUvarint(make([]byte, 0, binary.MaxVarintLen64+len(sessionID)), seq)
	return append(v, sessionID...)
}

// parseDoc decodes a docs value.
func parseDoc(v []byte) (seq uint64, sessionID string, ok bool) {
	seq, n := binary.Uvarint(v)
	if n <= 0 {
		return 0, "", false
	}
	return seq, string(v[n:]), true
}

// indexWriter collects the postings of the messages appended in one
// transaction and writes them token by token.
type indexWriter struct {
	s         *Store
	idx, docs *bolt.Bucket
	postings  map[string][]uint64
	// pending counts the postings collected since the last flush.
	pending int
}

// newIndexWriter returns a writer on the transaction's index buckets.
func (s *Store) newIndexWriter(tx *bolt.Tx) (*indexWriter, error) {
	idx, docs := tx.Bucket([]byte(bucketIndex)), tx.Bucket([]byte(bucketDocs))
	if idx == nil || docs == nil {
		return nil, s.damaged("the search index buckets are missing", nil)
	}
	docs.FillPercent = messagesFillPercent
	return &indexWriter{s: s, idx: idx, docs: docs, postings: make(map[string][]uint64)}, nil
}

// add makes message seq of the session, whose distinct tokens are tokens,
// a new document.
func (w *indexWriter) add(sessionID string, seq uint64, tokens map[string]struct{}) error {
	doc, err := w.docs.NextSequence()
	if err != nil {
		return err
	}
	if err := w.docs.Put(seqKey(doc), docValue(seq, sessionID)); err != nil {
		return err
	}
	for tok := range tokens {
		w.postings[tok] = append(w.postings[tok], doc)
	}
	st := sessionToken(sessionID)
	w.postings[st] = append(w.postings[st], doc)
	w.pending += len(tokens) + 1
	return nil
}

// flush writes the collected postings, in key order.
func (w *indexWriter) flush() error {
	for _, tok := range slices.Sorted(maps.Keys(w.postings)) {
		if err := appendPostings(w.idx, tok, w.postings[tok]); err != nil {
			if errors.Is(err, errBadBlock) {
				return w.s.damaged("the search index is inconsistent", err)
			}
			return err
		}
	}
	clear(w.postings)
	w.pending = 0
	return nil
}

// appendPostings adds ascending ids, all newer than any posted, to tok.
func appendPostings(idx *bolt.Bucket, tok string, ids []uint64) error {
	c := idx.Cursor()
	// The last block of tok is the one before the first key past it.
	k, _ := c.Seek(blockKey(tok, math.MaxUint64))
	var v []byte
	if k == nil {
		k, v = c.Last()
	} else {
		k, v = c.Prev()
	}
	// key and block are the block being extended (nil: start one); last
	// is the newest id posted so far, if have.
	var key, block []byte
	var last uint64
	have := false
	if base, ok := blockOf(k, tok); ok {
		var err error
		if last, err = lastOfBlock(base, v); err != nil {
			return fmt.Errorf("search index entry for %q: %w", tok, err)
		}
		have = true
		if !blockFull(len(v)) {
			key = append([]byte(nil), k...)
			block = append(make([]byte, 0, len(v)+2*binary.MaxVarintLen64), v...)
		}
	}
	for _, id := range ids {
		if have && id <= last {
			return fmt.Errorf("search index entry for %q: doc %d is not newer than %d: %w", tok, id, last, errBadBlock)
		}
		if key == nil || blockFull(len(block)) {
			if key != nil {
				// bbolt keeps key and value until commit: fresh slices
				// for every Put.
				if err := idx.Put(key, block); err != nil {
					return err
				}
			}
			key, block = blockKey(tok, id), make([]byte, 0, 64)
			last = id
		}
		// The first id of a new block is its base: delta 0.
		block = binary.AppendUvarint(block, id-last)
		last, have = id, true
	}
	return idx.Put(key, block)
}

// blockFull reports whether a block of n bytes might not take one more id.
func blockFull(n int) bool { return n+binary.MaxVarintLen64 > maxBlockBytes }

// postingsOf returns every doc id of tok, ascending.
func postingsOf(idx *bolt.Bucket, tok string) ([]uint64, error) {
	var out []uint64
	c := idx.Cursor()
	for k, v := c.Seek(blockKey(tok, 0)); ; k, v = c.Next() {
		base, ok := blockOf(k, tok)
		if !ok {
			return out, nil
		}
		var err error
		if out, err = decodeBlock(out, base, v); err != nil {
			return nil, fmt.Errorf("search index entry for %q: %w", tok, err)
		}
	}
}

// removePostings removes ascending ids from tok's posting list.
func removePostings(idx *bolt.Bucket, tok string, ids []uint64) error {
	type change struct {
		key, value []byte // value nil: delete
	}
	var changes []change
	c := idx.Cursor()
	k, v := seekBlock(c, tok, ids[0])
	var buf []uint64
	for len(ids) > 0 {
		base, ok := blockOf(k, tok)
		if !ok {
			break
		}
		var err error
		if buf, err = decodeBlock(buf[:0], base, v); err != nil {
			return fmt.Errorf("search index entry for %q: %w", tok, err)
		}
		kept, removed := buf[:0:0], false
		for _, id := range buf {
			for len(ids) > 0 && ids[0] < id {
				ids = ids[1:]
			}
			if len(ids) > 0 && ids[0] == id {
				ids, removed = ids[1:], true
				continue
			}
			kept = append(kept, id)
		}
		if removed {
			ch := change{key: append([]byte(nil), k...)}
			if len(kept) > 0 {
				ch.value = encodeBlock(base, kept)
			}
			changes = append(changes, ch)
		}
		k, v = c.Next()
	}
	// A cursor is not valid across writes: apply the changes afterwards.
	for _, ch := range changes {
		var err error
		if ch.value == nil {
			err = idx.Delete(ch.key)
		} else {
			err = idx.Put(ch.key, ch.value)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// seekBlock positions c on the block of tok that may hold id: the last one
// whose base is at most id, else the first one.
func seekBlock(c *bolt.Cursor, tok string, id uint64) ([]byte, []byte) {
	k, v := c.Seek(blockKey(tok, id))
	if base, ok := blockOf(k, tok); ok && base == id {
		return k, v
	}
	if k == nil {
		k, v = c.Last()
	} else {
		k, v = c.Prev()
	}
	if _, ok := blockOf(k, tok); ok {
		return k, v
	}
	return c.Seek(blockKey(tok, id))
}

// unindexSession removes the documents of a session and their postings.
// msgs is the session's messages bucket (nil if it has none).
func (s *Store) unindexSession(tx *bolt.Tx, id string, msgs *bolt.Bucket) error {
	idx, docs := tx.Bucket([]byte(bucketIndex)), tx.Bucket([]byte(bucketDocs))
	if idx == nil || docs == nil {
		return s.damaged("the search index buckets are missing", nil)
	}
	st := sessionToken(id)
	ids, err := postingsOf(idx, st)
	if err != nil {
		return s.damaged("the search index is unreadable", err)
	}
	byTok := make(map[string][]uint64)
	for _, doc := range ids {
		key := seqKey(doc)
		v := docs.Get(key)
		if v == nil {
			continue
		}
		if seq, sid, ok := parseDoc(v); ok && sid == id && msgs != nil {
			if raw := msgs.Get(seqKey(seq)); raw != nil {
				var m providers.Message
				// An unreadable message leaves its postings behind;
				// search skips postings without a document.
				if json.Unmarshal(raw, &m) == nil {
					for tok := range distinctTokens(searchText(&m)) {
						byTok[tok] = append(byTok[tok], doc)
					}
				}
			}
		}
		if err := docs.Delete(key); err != nil {
			return err
		}
	}
	if len(ids) > 0 {
		byTok[st] = ids
	}
	for _, tok := range slices.Sorted(maps.Keys(byTok)) {
		if err := removePostings(idx, tok, byTok[tok]); err != nil {
			return s.damaged("the search index is unreadable", err)
		}
	}
	return nil
}

// prefixBlocks calls fn for every block whose token starts with prefix.
func prefixBlocks(idx *bolt.Bucket, prefix string, fn func(tok string, base uint64, v []byte) error) error {
	c := idx.Cursor()
	p := []byte(prefix)
	for k, v := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, v = c.Next() {
		tok, base, ok := splitBlockKey(k)
		if !ok || len(tok) < len(prefix) {
			continue
		}
		if err := fn(tok, base, v); err != nil {
			return err
		}
	}
	return nil
}
