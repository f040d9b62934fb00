// Package suggest finds the likely intended value of a misspelt name
// ("did you mean"), for findings and diagnostics that name a closed set.
package suggest

import "strings"

// maxRunes bounds the compared length: closed-set values are short, and a
// longer input is never a typo of one, so hostile input stays cheap.
const maxRunes = 64

// Closest returns the member of set nearest to s by edit distance,
// ignoring case and treating '-' and '_' alike, when it is near enough to
// be a likely typo (at most a third of its length, and at least one edit
// allowed); "" otherwise. Ties go to the earlier member.
func Closest(s string, set []string) string {
	norm := func(x string) string { return strings.ReplaceAll(strings.ToLower(x), "-", "_") }
	best, bestD := "", -1
	for _, v := range set {
		if d := Distance(norm(s), norm(v)); bestD < 0 || d < bestD {
			best, bestD = v, d
		}
	}
	if bestD < 0 || bestD > max(1, len([]rune(best))/3) {
		return ""
	}
	return best
}

// Distance is the Levenshtein distance over runes of the first 64 runes
// of a and b.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	ra, rb = ra[:min(len(ra), maxRunes)], rb[:min(len(rb), maxRunes)]
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
