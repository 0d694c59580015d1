package persist

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"talaria/providers"
)

// verifyIndex recomputes the search index from the stored messages and
// compares it with the stored one: every message of every session is
// exactly one document, every document is a stored message, and every
// token's posting list is exactly the documents holding it, in well-formed
// blocks.
func verifyIndex(t testing.TB, s *Store) {
	t.Helper()
	err := s.view(func(tx *bolt.Tx) error {
		sessions, _, messages, err := s.buckets(tx)
		if err != nil {
			return err
		}
		idx, docs := tx.Bucket([]byte(bucketIndex)), tx.Bucket([]byte(bucketDocs))
		type loc struct {
			sid string
			seq uint64
		}
		docOf := map[loc]uint64{}
		err = docs.ForEach(func(k, v []byte) error {
			seq, sid, ok := parseDoc(v)
			if !ok || len(k) != 8 {
				return fmt.Errorf("bad doc %x=%x", k, v)
			}
			if seqFromKey(k) > docs.Sequence() {
				return fmt.Errorf("doc %d beyond the sequence %d", seqFromKey(k), docs.Sequence())
			}
			l := loc{sid, seq}
			if _, dup := docOf[l]; dup {
				return fmt.Errorf("message %v has two documents", l)
			}
			docOf[l] = seqFromKey(k)
			return nil
		})
		if err != nil {
			return err
		}
		want := map[string][]uint64{}
		nmsgs := 0
		err = sessions.ForEach(func(sid, _ []byte) error {
			b := messages.Bucket(sid)
			if b == nil {
				return nil
			}
			return b.ForEach(func(k, v []byte) error {
				nmsgs++
				doc, ok := docOf[loc{string(sid), seqFromKey(k)}]
				if !ok {
					return fmt.Errorf("message %s/%d has no document", sid, seqFromKey(k))
				}
				var m providers.Message
				if err := json.Unmarshal(v, &m); err != nil {
					return err
				}
				for tok := range distinctTokens(searchText(&m)) {
					want[tok] = append(want[tok], doc)
				}
				st := sessionToken(string(sid))
				want[st] = append(want[st], doc)
				return nil
			})
		})
		if err != nil {
			return err
		}
		if nmsgs != len(docOf) {
			return fmt.Errorf("%d messages but %d documents", nmsgs, len(docOf))
		}
		for _, l := range want {
			slices.Sort(l)
		}
		got := map[string][]uint64{}
		err = idx.ForEach(func(k, v []byte) error {
			tok, base, ok := splitBlockKey(k)
			if !ok {
				return fmt.Errorf("bad index key %q", k)
			}
			if len(v) == 0 || len(v) > maxBlockBytes {
				return fmt.Errorf("block %q has %d bytes", k, len(v))
			}
			ids, err := decodeBlock(nil, base, v)
			if err != nil {
				return fmt.Errorf("block %q: %w", k, err)
			}
			if prev := got[tok]; len(prev) > 0 && prev[len(prev)-1] >= base {
				return fmt.Errorf("block %q overlaps the previous one", k)
			}
			got[tok] = append(got[tok], ids...)
			return nil
		})
		if err != nil {
			return err
		}
		for _, tok := range slices.Sorted(maps.Keys(want)) {
			if !reflect.DeepEqual(got[tok], want[tok]) {
				return fmt.Errorf("postings of %q: stored %v, want %v", tok, got[tok], want[tok])
			}
		}
		for tok := range got {
			if _, ok := want[tok]; !ok {
				return fmt.Errorf("stale postings for %q: %v", tok, got[tok])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("index check: %v", err)
	}
}

func TestTokenize(t *testing.T) {
	for in, want := range map[string]string{
		"Hello, World!":                 "hello world",
		"read_file main.go":             "read file main go",
		"ÜBER naïve café":               "über naïve café",
		"日本語のテキスト":                      "日 本 語 の テ キ ス ト",
		"go1.26 x86_64 ÅSTRÖM":          "go1 26 x86 64 åström",
		"  \t\n ":                       "",
		"emoji 🚀 rocket":                "emoji rocket",
		"Ωmega ΣΊΣΥΦΟΣ":                 "ωmega σίσυφοσ",
		strings.Repeat("ab", 40) + " z": strings.Repeat("ab", 24) + " z",
		"e\u0301t\u00e9":                "e\u0301té",
	} {
		var toks []string
		for _, sp := range tokenSpans(in) {
			toks = append(toks, sp.tok)
			if sp.start < 0 || sp.end > len(in) || sp.start >= sp.end {
				t.Fatalf("%q: bad span %+v", in, sp)
			}
		}
		if got := strings.Join(toks, " "); got != want {
			t.Errorf("tokenize(%q) = %q, want %q", in, got, want)
		}
	}
	m := providers.Message{Role: providers.RoleAssistant, Content: "ok",
		ToolCalls: []providers.ToolCall{{Name: "write_file", Arguments: `{"path":"a/b.go","content":"line1\nline2","n":3}`}}}
	if got := searchText(&m); !strings.Contains(got, "line1\nline2") || !strings.Contains(got, "write_file") {
		t.Fatalf("searchText = %q", got)
	}
}

func TestPostingBlocks(t *testing.T) {
	s := tempStore(t)
	var ids []uint64
	for i := uint64(1); i <= 3000; i++ {
		if i%3 != 0 {
			ids = append(ids, i*7)
		}
	}
	err := s.update(func(tx *bolt.Tx) error {
		idx := tx.Bucket([]byte(bucketIndex))
		// In several appends, the last block filling up across them.
		for _, part := range [][]uint64{ids[:1], ids[1:500], ids[500:]} {
			if err := appendPostings(idx, "tok", part); err != nil {
				return err
			}
		}
		if err := appendPostings(idx, "tok", ids[:1]); err == nil {
			return fmt.Errorf("an old id was appended")
		}
		if err := appendPostings(idx, "toka", []uint64{5}); err != nil {
			return err
		}
		got, err := postingsOf(idx, "tok")
		if err != nil || !reflect.DeepEqual(got, ids) {
			return fmt.Errorf("round trip: %v (%d ids, want %d)", err, len(got), len(ids))
		}
		blocks := 0
		_ = idx.ForEach(func(k, _ []byte) error { blocks++; return nil })
		if blocks < len(ids)/maxBlockBytes || blocks < 2 {
			return fmt.Errorf("only %d blocks", blocks)
		}
		// Remove every fourth, and the whole first and last blocks' worth.
		var gone, kept []uint64
		for i, id := range ids {
			if i%4 == 0 || i < 600 || i > len(ids)-300 {
				gone = append(gone, id)
			} else {
				kept = append(kept, id)
			}
		}
		if err := removePostings(idx, "tok", append(gone, 999_999)); err != nil {
			return err
		}
		got, err = postingsOf(idx, "tok")
		if err != nil || !reflect.DeepEqual(got, kept) {
			return fmt.Errorf("after removal: %v (%d ids, want %d)", err, len(got), len(kept))
		}
		if err := removePostings(idx, "tok", kept); err != nil {
			return err
		}
		if got, _ := postingsOf(idx, "tok"); len(got) != 0 {
			return fmt.Errorf("left %v", got)
		}
		if got, _ := postingsOf(idx, "toka"); !reflect.DeepEqual(got, []uint64{5}) {
			return fmt.Errorf("neighbour token changed: %v", got)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestIndexFollowsAppendAndDelete(t *testing.T) {
	s := tempStore(t)
	a := mustCreate(t, s, &Session{})
	b := mustCreate(t, s, &Session{})
	if err := s.AppendMessages(a.ID, sampleConversation()...); err != nil {
		t.Fatal(err)
	}
	for i := range 40 {
		if err := s.AppendMessages(b.ID, benchMessage(i), providers.Message{Role: providers.RoleUser, Content: fmt.Sprintf("word%d common", i)}); err != nil {
			t.Fatal(err)
		}
		if err := s.AppendMessages(a.ID, providers.Message{Role: providers.RoleUser, Content: fmt.Sprintf("common other%d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	verifyIndex(t, s)
	if err := s.DeleteSession(b.ID); err != nil {
		t.Fatal(err)
	}
	verifyIndex(t, s)
	err := s.view(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte(bucketIndex)).ForEach(func(k, _ []byte) error {
			if strings.Contains(string(k), b.ID) || strings.HasPrefix(string(k), "word") {
				return fmt.Errorf("postings of the deleted session remain: %q", k)
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CloseDangling(a.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteSession(a.ID); err != nil {
		t.Fatal(err)
	}
	verifyIndex(t, s)
	err = s.view(func(tx *bolt.Tx) error {
		if n := tx.Bucket([]byte(bucketIndex)).Stats().KeyN + tx.Bucket([]byte(bucketDocs)).Stats().KeyN; n != 0 {
			return fmt.Errorf("%d index keys left in an empty store", n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
