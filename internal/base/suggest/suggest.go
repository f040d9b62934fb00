// Package suggest finds the likely intended value of a misspelt name
// ("did you mean"), for findings and diagnostics that name a closed set.
package suggest

import "strings"

// MaxRunes bounds the compared length: closed-set values are short, and a
// longer input is never a typo of one, so hostile input stays cheap.
const MaxRunes = 64

// Closest returns the member of set nearest to s by edit distance,
// ignoring case and treating '-' and '_' alike, when it is near enough to
// be a likely typo (at most a third of its length, and at least one edit
// allowed, for names of two or more characters); "" otherwise. Ties go to the earlier member.
func Closest(s string, set []string) string {
	norm := func(x string) string { return strings.ReplaceAll(strings.ToLower(x), "-", "_") }
	s = norm(head(s))
	best, bestD := "", -1
	for _, v := range set {
		// A member longer than what Distance compares is no closed-set
		// value, and would be offered whole for its first runes.
		if head(v) != v {
			continue
		}
		if d := Distance(s, norm(v)); bestD < 0 || d < bestD {
			best, bestD = v, d
		}
	}
	// One-letter names are never typos of each other: "b" is not a
	// misspelt "a".
	if n := len([]rune(best)); bestD < 0 || n < 2 || bestD > max(1, n/3) {
		return ""
	}
	return best
}

// DidYouMean is "did you mean X?" for the member X of set nearest to got
// (Closest), or "" when none is close or got is X itself: the hint of a
// finding or diagnostic that names a closed set, which callers wrap as
// their message needs. A newline in X is written \x0a, as text output
// escapes it in a message: a hint's newlines are its lines.
func DidYouMean(got string, set []string) string {
	if near := Closest(got, set); near != "" && near != got {
		return "did you mean " + OneLine(near) + "?"
	}
	return ""
}

// OneLine is name with its newlines written \x0a, for a hint that quotes
// it on one of its lines.
func OneLine(name string) string { return strings.ReplaceAll(name, "\n", `\x0a`) }

// Distance is the optimal-string-alignment edit distance over the first
// 64 runes of a and b: insertions, deletions, substitutions and swaps of
// two neighbouring runes ("titel" → "title", the commonest typo) each
// cost one.
func Distance(a, b string) int {
	ra, rb := []rune(head(a)), []rune(head(b))
	// Three rows: two back for the transposition, one back, current.
	prev2 := make([]int, len(rb)+1)
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
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// head is s cut after its first MaxRunes runes, all that Distance
// compares: a 16 MB word is not lowered, copied and decoded whole once
// per member of the set to say it is no typo.
func head(s string) string {
	n := 0
	for i := range s {
		if n == MaxRunes {
			return s[:i]
		}
		n++
	}
	return s
}
