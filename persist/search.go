package persist

import (
	"context"
	"encoding/json"
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	bolt "go.etcd.io/bbolt"

	"talaria/providers"
)

// DefaultSearchLimit is the number of hits SearchSessions returns when the
// caller gives no limit.
const DefaultSearchLimit = 10

// Snippet geometry, in runes: the whole snippet, and the context kept
// before the hit.
const (
	snippetRunes  = 200
	snippetBefore = 60
)

// SearchHit is one message that matches a search.
type SearchHit struct {
	SessionID, Title string
	// Role is the message's role: user, assistant or tool.
	Role string
	// Snippet is the message text around the first hit, on one line, with
	// "…" where it was cut.
	Snippet string
	// When is the message's timestamp (zero if it has none).
	When time.Time
	// Seq is the message's 1-based position in its session.
	Seq uint64
}

// SearchSessions searches the text of every stored message (content, and
// the names and string arguments of tool calls) and returns the matching
// messages, newest first, at most limit of them (DefaultSearchLimit when
// limit <= 0). A non-empty sessionID restricts the search to that session
// (ErrNotFound, wrapped, if it does not exist). The query syntax: words are
// AND-ed, OR between words makes alternatives, "a phrase" in quotes, word*
// for a prefix, -word or NOT word to exclude; matching ignores case. A
// query with nothing to look for is an error.
func (s *Store) SearchSessions(ctx context.Context, query string, limit int, sessionID string) ([]SearchHit, error) {
	q, ok := parseQuery(query)
	if !ok {
		return nil, fmt.Errorf("search query %q has nothing to look for: give at least one word that is not excluded", query)
	}
	if limit <= 0 {
		limit = DefaultSearchLimit
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var hits []SearchHit
	err := s.view(func(tx *bolt.Tx) error {
		se, err := s.newSearcher(ctx, tx)
		if err != nil {
			return err
		}
		must := q.must
		if sessionID != "" {
			if _, err := s.getSession(tx, sessionID, false); err != nil {
				return err
			}
			must = append(slices.Clone(must), []qterm{{toks: []string{sessionToken(sessionID)}}})
		}
		cands, err := se.candidates(must, q.not)
		if err != nil {
			return err
		}
		hits, err = se.collect(&q, cands, limit)
		return err
	})
	if err != nil {
		return nil, err
	}
	return hits, nil
}

// searcher runs one search inside a read transaction.
type searcher struct {
	s                         *Store
	ctx                       context.Context
	idx, docs, msgs, sessions *bolt.Bucket
	titles                    map[string]*string // nil entry: no such session
}

// newSearcher binds a search to a transaction.
func (s *Store) newSearcher(ctx context.Context, tx *bolt.Tx) (*searcher, error) {
	sessions, _, msgs, err := s.buckets(tx)
	if err != nil {
		return nil, err
	}
	idx, docs := tx.Bucket([]byte(bucketIndex)), tx.Bucket([]byte(bucketDocs))
	if idx == nil || docs == nil {
		return nil, s.damaged("the search index buckets are missing", nil)
	}
	return &searcher{s: s, ctx: ctx, idx: idx, docs: docs, msgs: msgs, sessions: sessions,
		titles: make(map[string]*string)}, nil
}

// candidates returns, ascending, the documents that the index says may
// match: in every clause's union, in no excluded single word's postings.
// Phrases are checked later, against the text.
func (se *searcher) candidates(must [][]qterm, not []qterm) ([]uint64, error) {
	sets := make([][]uint64, 0, len(must))
	for _, clause := range must {
		var union [][]uint64
		for i := range clause {
			docs, err := se.termDocs(&clause[i])
			if err != nil {
				return nil, err
			}
			union = append(union, docs)
		}
		set := se.union(union)
		if len(set) == 0 {
			return nil, nil
		}
		sets = append(sets, set)
	}
	slices.SortFunc(sets, func(a, b []uint64) int { return len(a) - len(b) })
	cands := sets[0]
	for _, set := range sets[1:] {
		cands = intersect(cands, set)
	}
	for i := range not {
		if !not[i].exact() {
			continue
		}
		docs, err := se.termDocs(&not[i])
		if err != nil {
			return nil, err
		}
		cands = subtract(cands, docs)
	}
	return cands, se.ctx.Err()
}

// termDocs returns the documents holding every token of the term.
func (se *searcher) termDocs(t *qterm) ([]uint64, error) {
	var out []uint64
	for i, tok := range t.toks {
		if err := se.ctx.Err(); err != nil {
			return nil, err
		}
		var docs []uint64
		var err error
		if t.prefix && i == len(t.toks)-1 {
			docs, err = se.prefixDocs(tok)
		} else {
			docs, err = postingsOf(se.idx, tok)
		}
		if err != nil {
			return nil, se.s.damaged("the search index is unreadable", err)
		}
		if i == 0 {
			out = docs
		} else {
			out = intersect(out, docs)
		}
		if len(out) == 0 {
			return nil, nil
		}
	}
	return out, nil
}

// prefixDocs returns the documents holding a token that starts with
// prefix, gathered in a bitmap over all doc ids (a short prefix can name
// thousands of tokens).
func (se *searcher) prefixDocs(prefix string) ([]uint64, error) {
	set := newBitset(se.docs.Sequence())
	var buf []uint64
	err := prefixBlocks(se.idx, prefix, func(_ string, base uint64, v []byte) error {
		var err error
		if buf, err = decodeBlock(buf[:0], base, v); err != nil {
			return err
		}
		for _, id := range buf {
			set.add(id)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return set.list(), nil
}

// union merges ascending lists.
func (se *searcher) union(lists [][]uint64) []uint64 {
	if len(lists) == 1 {
		return lists[0]
	}
	set := newBitset(se.docs.Sequence())
	for _, l := range lists {
		for _, id := range l {
			set.add(id)
		}
	}
	return set.list()
}

// collect turns candidates into hits, newest first, checking each against
// the message text, until limit.
func (se *searcher) collect(q *searchQuery, cands []uint64, limit int) ([]SearchHit, error) {
	var hits []SearchHit
	for i := len(cands) - 1; i >= 0 && len(hits) < limit; i-- {
		if i%32 == 0 {
			if err := se.ctx.Err(); err != nil {
				return nil, err
			}
		}
		hit, ok, err := se.hit(q, cands[i])
		if err != nil {
			return nil, err
		}
		if ok {
			hits = append(hits, hit)
		}
	}
	return hits, nil
}

// hit loads one document and builds its hit if the query matches it.
// Postings of a document that no longer exists are skipped.
func (se *searcher) hit(q *searchQuery, doc uint64) (SearchHit, bool, error) {
	v := se.docs.Get(seqKey(doc))
	if v == nil {
		return SearchHit{}, false, nil
	}
	seq, sid, ok := parseDoc(v)
	if !ok {
		return SearchHit{}, false, se.s.damaged(fmt.Sprintf("search document %d is unreadable", doc), nil)
	}
	title, ok := se.title(sid)
	b := se.msgs.Bucket([]byte(sid))
	if !ok || b == nil {
		return SearchHit{}, false, nil
	}
	raw := b.Get(seqKey(seq))
	if raw == nil {
		return SearchHit{}, false, nil
	}
	var m providers.Message
	if err := json.Unmarshal(raw, &m); err != nil {
		return SearchHit{}, false, se.s.damaged(fmt.Sprintf("message %d of session %s is unreadable", seq, sid), err)
	}
	text := searchText(&m)
	start, end, ok := q.match(tokenSpans(text))
	if !ok {
		return SearchHit{}, false, nil
	}
	hit := SearchHit{SessionID: sid, Title: title, Role: string(m.Role), Snippet: snippet(text, start, end), Seq: seq}
	if m.Timestamp != 0 {
		hit.When = time.UnixMilli(m.Timestamp)
	}
	return hit, true, nil
}

// title returns a session's title, or false if the session is gone.
func (se *searcher) title(id string) (string, bool) {
	t, seen := se.titles[id]
	if !seen {
		if raw := se.sessions.Get([]byte(id)); raw != nil {
			if sess, err := se.s.decodeSession(id, raw); err == nil {
				t = &sess.Title
			} else {
				t = new(string)
			}
		}
		se.titles[id] = t
	}
	if t == nil {
		return "", false
	}
	return *t, true
}

// snippet cuts the text around [start, end): up to snippetBefore runes
// before the hit, snippetRunes in all, cut between words where it can, on
// one line, with "…" marking a cut.
func snippet(text string, start, end int) string {
	lo := start
	for n := 0; lo > 0 && n < snippetBefore; n++ {
		_, size := utf8.DecodeLastRuneInString(text[:lo])
		lo -= size
	}
	if lo > 0 {
		if i := strings.IndexAny(text[lo:start], " \t\n"); i >= 0 {
			lo += i + 1
		}
	}
	hi, n := lo, 0
	for hi < len(text) && (n < snippetRunes || hi < end) {
		_, size := utf8.DecodeRuneInString(text[hi:])
		hi += size
		n++
	}
	if hi < len(text) && hi > end {
		if i := strings.LastIndexAny(text[end:hi], " \t\n"); i >= 0 {
			hi = end + i
		}
	}
	out := cell(text[lo:hi], 0)
	if lo > 0 {
		out = "…" + out
	}
	if hi < len(text) {
		out += "…"
	}
	return out
}

// bitset is a set of doc ids up to a maximum.
type bitset []uint64

// newBitset returns an empty set for ids 0..max.
func newBitset(max uint64) bitset { return make(bitset, max/64+1) }

// add puts id in the set; ids beyond the maximum are ignored.
func (b bitset) add(id uint64) {
	if w := id / 64; w < uint64(len(b)) {
		b[w] |= 1 << (id % 64)
	}
}

// list returns the members, ascending.
func (b bitset) list() []uint64 {
	var out []uint64
	for w, word := range b {
		for word != 0 {
			out = append(out, uint64(w)*64+uint64(bits.TrailingZeros64(word)))
			word &= word - 1
		}
	}
	return out
}

// intersect returns the ids in both ascending lists.
func intersect(a, b []uint64) []uint64 {
	out := make([]uint64, 0, min(len(a), len(b)))
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

// subtract returns the ids of a that are not in b (both ascending).
func subtract(a, b []uint64) []uint64 {
	out := make([]uint64, 0, len(a))
	j := 0
	for _, id := range a {
		for j < len(b) && b[j] < id {
			j++
		}
		if j < len(b) && b[j] == id {
			continue
		}
		out = append(out, id)
	}
	return out
}
