package ui

import (
	"sort"
	"strings"

	"github.com/sahilm/fuzzy"
)

// maxScored caps the files one query scores with the fuzzy matcher
// (a few µs each): past it, the candidates with the query's first
// letter starting their base name, then the shortest, are scored.
const maxScored = 1000

// fileQuery is a query of the file finder and its matches, kept so that
// the several looks at the popup within one key press (is it open, what
// is selected, draw it) match the list once, and so that a query typed
// on from it looks only among the files it matched (cands).
type fileQuery struct {
	q       string
	ok      bool
	cands   []string // every file holding q's letters in order
	matches []string
}

// newFileList is a listed working directory.
func newFileList(files []string, truncated bool, err error) fileList {
	set := make(map[string]bool, len(files))
	for _, f := range files {
		set[f] = true
	}
	return fileList{state: 2, files: files, set: set, truncated: truncated, err: err}
}

// match returns the files that match q, at most maxFileMatches: with no
// query the first files in order, else by sahilm/fuzzy's score (the
// characters of q in order, ranked up for matches at the start of a path
// part, after a separator and next to each other), the shorter path first
// among equals.
func (fl *fileList) match(q string) []string {
	if fl.last.ok && fl.last.q == q {
		return fl.last.matches
	}
	if q == "" {
		out := fl.files[:min(len(fl.files), maxFileMatches)]
		fl.last = fileQuery{q: q, ok: true, cands: fl.files, matches: out}
		return out
	}
	pool := fl.files
	if fl.last.ok && fl.last.q != "" && strings.HasPrefix(q, fl.last.q) {
		pool = fl.last.cands // typed on: only what matched before can match
	}
	cands := make([]string, 0, min(len(pool), 1024))
	for _, f := range pool {
		if inOrder(q, f) {
			cands = append(cands, f)
		}
	}
	scored := cands
	if len(scored) > maxScored {
		scored = likeliest(cands, q, maxScored)
	}
	ms := fuzzy.FindNoSort(q, scored)
	rank(ms)
	out := make([]string, 0, min(len(ms), maxFileMatches))
	for _, mt := range ms[:min(len(ms), maxFileMatches)] {
		out = append(out, mt.Str)
	}
	fl.last = fileQuery{q: q, ok: true, cands: cands, matches: out}
	return out
}

// inOrder reports whether the letters of q occur in s in order, ASCII
// case folded: the cheap test before scoring.
func inOrder(q, s string) bool {
	i := 0
	for j := 0; i < len(q) && j < len(s); j++ {
		if lower(q[i]) == lower(s[j]) {
			i++
		}
	}
	return i == len(q)
}

func lower(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

// likeliest picks n of cands to score, in one pass: those whose base
// name starts with q's first letter, then the others, each in list order.
func likeliest(cands []string, q string, n int) []string {
	first := lower(q[0])
	picked := make([]string, 0, n)
	var rest []string
	for _, f := range cands {
		base := f[strings.LastIndexByte(f, '/')+1:]
		switch {
		case len(picked) == n:
			return picked
		case base != "" && lower(base[0]) == first:
			picked = append(picked, f)
		case len(rest) < n:
			rest = append(rest, f)
		}
	}
	return append(picked, rest[:min(len(rest), n-len(picked))]...)
}

// rank orders matches with every matched letter in the base name first
// (as fzf prefers a file name match), then by score, then the shorter
// path, then the path: "cmpsr" finds ui/composer.go before
// loop/compress/summary.go, "main" main.go before cmd/main.go.
func rank(ms fuzzy.Matches) {
	inBase := make([]bool, len(ms))
	for i := range ms {
		base := strings.LastIndexByte(ms[i].Str, '/') + 1
		inBase[i] = len(ms[i].MatchedIndexes) > 0 && ms[i].MatchedIndexes[0] >= base
	}
	idx := make([]int, len(ms))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool {
		a, b := &ms[idx[i]], &ms[idx[j]]
		if ba, bb := inBase[idx[i]], inBase[idx[j]]; ba != bb {
			return ba
		}
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if len(a.Str) != len(b.Str) {
			return len(a.Str) < len(b.Str)
		}
		return a.Str < b.Str
	})
	sorted := make(fuzzy.Matches, len(ms))
	for i, k := range idx {
		sorted[i] = ms[k]
	}
	copy(ms, sorted)
}
