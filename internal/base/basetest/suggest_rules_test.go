package basetest_test

import (
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/suggest"
)

func TestSuggestUnknownRule(t *testing.T) {
	known := []string{"core-guide-size", "language-id", "retention-value"}
	for _, tc := range []struct {
		disabled map[string]bool
		want     string // "" for no error
	}{
		{nil, ""},
		{map[string]bool{"language-id": true, "retention-value": true}, ""},
		{map[string]bool{"no-such-rule": true}, `unknown rule "no-such-rule"; list the rules with --list-rules`},
		// A typo names the rule meant.
		{map[string]bool{"core-guide-siz": true}, `unknown rule "core-guide-siz" (did you mean "core-guide-size"?); list the rules with --list-rules`},
		// Of several unknown IDs the first in sorted order is named, so the
		// message does not depend on map order.
		{map[string]bool{"zz": true, "language-id": true, "languag-id": true}, `unknown rule "languag-id" (did you mean "language-id"?); list the rules with --list-rules`},
	} {
		err := suggest.UnknownRule(tc.disabled, known)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("UnknownRule(%v) = %q, want %q", tc.disabled, got, tc.want)
		}
	}
}
