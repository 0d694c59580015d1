package config

import (
	"strings"

	"talaria/tools"
)

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
		if d := tools.EditDistance(b, strings.ToLower(k), -1); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}
