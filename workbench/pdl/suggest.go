package pdl

// Suggest returns the candidate closest to word by edit distance, or ""
// when none is close enough to be a likely misspelling (at most a third
// of the word's length, and at least one edit allowed).
func Suggest(word string, candidates []string) string {
	best, bestD := "", len(word)/3+1
	if len(word) > 64 {
		// Long words are not misspellings of keywords; skip the quadratic
		// distance so hostile input stays cheap.
		return ""
	}
	for _, c := range candidates {
		if d := distance(word, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// DidYouMean formats Suggest's answer as a hint, "" without one.
func DidYouMean(word string, candidates []string) string {
	if s := Suggest(word, candidates); s != "" {
		return "did you mean " + s + "?"
	}
	return ""
}

// distance is the Levenshtein distance over bytes, case-insensitive so
// `readonly` finds `readOnly`.
func distance(a, b string) int {
	lower := func(c byte) byte {
		if c >= 'A' && c <= 'Z' {
			return c + 'a' - 'A'
		}
		return c
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if lower(a[i-1]) == lower(b[j-1]) {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
