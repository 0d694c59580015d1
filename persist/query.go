package persist

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// A search query, as SearchSessions reads it:
//
//	error timeout        both words (AND is the default; the word AND is ignored)
//	docker OR podman     either word; OR binds tighter than the implicit AND,
//	                     so "deploy docker OR podman" is deploy AND (docker OR podman)
//	"connection reset"   a phrase: the words next to each other, in order
//	migrat*              any word starting with migrat
//	-vendor, NOT vendor  messages without the word (or -"a phrase")
//
// Words are matched as the index splits them: lowercased, letters and
// digits only, so a query word with punctuation inside ("read_file",
// "main.go") is the phrase of its parts. Operators are only OR, AND and NOT
// in capitals; a query needs at least one word that is not excluded.

// qterm is one query term: one token, or a phrase of adjacent tokens; with
// prefix set, the last token matches any token it starts.
type qterm struct {
	toks   []string
	prefix bool
}

// searchQuery is a parsed query: every clause must match (a clause matches
// when one of its terms does) and no excluded term may.
type searchQuery struct {
	must [][]qterm
	not  []qterm
}

// exact reports whether the index alone decides the term: a single token.
func (t *qterm) exact() bool { return len(t.toks) == 1 }

// lexeme is one word or quoted string of a query.
type lexeme struct {
	text           string
	quoted, negate bool
}

// lexQuery splits a query into words and quoted strings; a leading '-'
// negates. An unterminated quote runs to the end.
func lexQuery(q string) []lexeme {
	var out []lexeme
	i := 0
	for i < len(q) {
		r, size := utf8.DecodeRuneInString(q[i:])
		if unicode.IsSpace(r) {
			i += size
			continue
		}
		var lx lexeme
		if q[i] == '-' && i+1 < len(q) {
			if r2, _ := utf8.DecodeRuneInString(q[i+1:]); !unicode.IsSpace(r2) {
				lx.negate = true
				i++
			}
		}
		if q[i] == '"' {
			lx.quoted = true
			rest := q[i+1:]
			j := strings.IndexByte(rest, '"')
			if j < 0 {
				j = len(rest)
			}
			lx.text = rest[:j]
			i += 1 + min(j+1, len(rest))
		} else {
			j := strings.IndexFunc(q[i:], unicode.IsSpace)
			if j < 0 {
				j = len(q) - i
			}
			lx.text = q[i : i+j]
			i += j
		}
		out = append(out, lx)
	}
	return out
}

// parseQuery reads a query (see the comment at the top of this file). It
// returns ok false when the query has no word to look for.
func parseQuery(q string) (searchQuery, bool) {
	var sq searchQuery
	or, not := false, false
	for _, lx := range lexQuery(q) {
		if !lx.quoted && !lx.negate {
			switch lx.text {
			case "OR":
				or = len(sq.must) > 0
				continue
			case "AND":
				continue
			case "NOT":
				not = true
				continue
			}
		}
		t, ok := makeTerm(lx.text)
		if !ok {
			continue
		}
		switch {
		case lx.negate || not:
			sq.not = append(sq.not, t)
		case or:
			last := len(sq.must) - 1
			sq.must[last] = append(sq.must[last], t)
		default:
			sq.must = append(sq.must, []qterm{t})
		}
		or, not = false, false
	}
	return sq, len(sq.must) > 0
}

// makeTerm tokenizes one word or phrase; a '*' right after its last word
// makes that word a prefix.
func makeTerm(text string) (qterm, bool) {
	spans := tokenSpans(text)
	if len(spans) == 0 {
		return qterm{}, false
	}
	t := qterm{toks: make([]string, len(spans))}
	for i, sp := range spans {
		t.toks[i] = sp.tok
	}
	last := spans[len(spans)-1]
	t.prefix = last.end < len(text) && text[last.end] == '*'
	return t, true
}

// find returns the index in spans where the term first occurs, or -1.
func (t *qterm) find(spans []tokenSpan) int {
	n := len(t.toks)
	for i := 0; i+n <= len(spans); i++ {
		ok := true
		for j, tok := range t.toks {
			got := spans[i+j].tok
			if got != tok && !(t.prefix && j == n-1 && strings.HasPrefix(got, tok)) {
				ok = false
				break
			}
		}
		if ok {
			return i
		}
	}
	return -1
}

// match checks the query against a message's tokens. It returns where the
// earliest match of a wanted term starts and ends (byte offsets in the
// message text), for the snippet.
func (q *searchQuery) match(spans []tokenSpan) (start, end int, ok bool) {
	first := -1
	var firstTerm *qterm
	for _, clause := range q.must {
		found := false
		for i := range clause {
			if at := clause[i].find(spans); at >= 0 {
				found = true
				if first < 0 || at < first {
					first, firstTerm = at, &clause[i]
				}
			}
		}
		if !found {
			return 0, 0, false
		}
	}
	for i := range q.not {
		if q.not[i].find(spans) >= 0 {
			return 0, 0, false
		}
	}
	return spans[first].start, spans[first+len(firstTerm.toks)-1].end, true
}
