package program

import "github.com/pilotage-dev/pilotage/internal/base/suggest"

// hint suggests the closest of candidates to name, or "" when none is
// close. Callers pass only names the caller may see (§10.3), so a hint can
// never reveal an invisible entry.
func hint(name string, candidates []string) string {
	if best := suggest.Closest(name, candidates); best != "" && best != name {
		return "did you mean " + best + "?"
	}
	return ""
}
