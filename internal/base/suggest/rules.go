package suggest

import (
	"fmt"
	"sort"
)

// UnknownRule is the error of a checking verb's --disable (lint, replay,
// conform) for the first, in sorted order, of the disabled IDs that is not
// in known, with the nearest known ID when it is near enough to be a typo;
// nil when every ID is known. One function, so the verbs word it alike.
func UnknownRule(disabled map[string]bool, known []string) error {
	isKnown := make(map[string]bool, len(known))
	for _, id := range known {
		isKnown[id] = true
	}
	var unknown []string
	for id := range disabled {
		if !isKnown[id] {
			unknown = append(unknown, id)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	if near := Closest(unknown[0], known); near != "" {
		return fmt.Errorf("unknown rule %q (did you mean %q?); list the rules with --list-rules", unknown[0], near)
	}
	return fmt.Errorf("unknown rule %q; list the rules with --list-rules", unknown[0])
}
