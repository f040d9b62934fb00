package program

// hint suggests the closest of candidates to name, or "" when none is
// close. Callers pass only names the caller may see (§10.3), so a hint can
// never reveal an invisible entry.
func hint(name string, candidates []string) string {
	best, bestD := "", -1
	limit := (len([]rune(name)) + 1) / 3
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

// distance is the optimal-string-alignment edit distance over code
// points: insertions, deletions, substitutions and adjacent transpositions
// ("raed" → "read") each cost one.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
