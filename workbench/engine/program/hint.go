package program

// hint suggests the closest of candidates to name, or "" when none is
// close. Callers pass only names the caller may see (§10.3), so a hint can
// never reveal an invisible entry.
func hint(name string, candidates []string) string {
	best, bestD := "", -1
	limit := max(1, len([]rune(name))/3)
	for _, c := range candidates {
		if c == name {
			continue
		}
		d := distance(name, c)
		if d <= limit && (bestD < 0 || d < bestD || d == bestD && c < best) {
			best, bestD = c, d
		}
	}
	if best == "" {
		return ""
	}
	return "did you mean " + best + "?"
}

// distance is the Levenshtein edit distance over code points.
func distance(a, b string) int {
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
