package pdl

import "github.com/pilotage-dev/pilotage/lint/suggest"

// DidYouMean formats the closest candidate as a hint, "" when none is
// close enough to be a likely misspelling. Beyond edit distance it knows
// the commonest keyword typo, two neighbouring letters swapped ("titel"),
// which plain edit distance counts as two edits and so misses in short
// words.
func DidYouMean(word string, candidates []string) string {
	if s := suggest.Closest(word, candidates); s != "" && s != word {
		return "did you mean " + s + "?"
	}
	for _, c := range candidates {
		if swapped(word, c) {
			return "did you mean " + c + "?"
		}
	}
	return ""
}

// swapped reports whether a becomes b by exchanging two adjacent bytes.
func swapped(a, b string) bool {
	if len(a) != len(b) || a == b {
		return false
	}
	i := 0
	for i < len(a) && a[i] == b[i] {
		i++
	}
	return i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:]
}
