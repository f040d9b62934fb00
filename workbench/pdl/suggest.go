package pdl

import "github.com/pilotage-dev/pilotage/internal/base/suggest"

// DidYouMean formats the closest candidate as a hint, "" when none is
// close enough to be a likely misspelling (swapped neighbours such as
// "titel" count as one edit).
func DidYouMean(word string, candidates []string) string {
	if s := suggest.Closest(word, candidates); s != "" && s != word {
		return "did you mean " + s + "?"
	}
	return ""
}
