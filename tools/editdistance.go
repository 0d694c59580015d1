package tools

// EditDistance is the Levenshtein distance of a and b in runes (the fewest
// insertions, deletions and substitutions that turn one into the other),
// or bound+1 once it is known to exceed bound; a negative bound means no
// bound. It serves every "did you mean" of the tree: file names here,
// config keys, slash commands.
func EditDistance(a, b string, bound int) int {
	ra, rb := []rune(a), []rune(b)
	if bound < 0 {
		bound = max(len(ra), len(rb))
	}
	if d := len(ra) - len(rb); d > bound || -d > bound {
		return bound + 1
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > bound {
			return bound + 1
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
