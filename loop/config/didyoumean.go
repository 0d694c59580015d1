package config

import "strings"

// closestKey returns the known key nearest to bad by edit distance
// (Levenshtein, compared case-insensitively), when it is near enough to
// be a slip rather than another word: at most one edit for keys of up to
// four characters, two up to eight, three beyond. "" when none is.
func closestKey(bad string, known []string) string {
	b := strings.ToLower(bad)
	limit := 3
	switch n := len([]rune(b)); {
	case n <= 4:
		limit = 1
	case n <= 8:
		limit = 2
	}
	best, bestD := "", limit+1
	for _, k := range known {
		if d := editDistance(b, strings.ToLower(k)); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in runes: the
// fewest insertions, deletions and substitutions that turn a into b.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
