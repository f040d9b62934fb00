package pilotage_test

import (
	"strings"
	"testing"
)

// rejectCase is one input a parser must refuse, with a phrase its error
// message must contain (so the author learns what is wrong).
type rejectCase struct {
	in, says string
}

// checkRejects runs parse on every case and requires an error that says
// what the case expects.
func checkRejects[T any](t *testing.T, name string, parse func(string) (T, error), cases []rejectCase) {
	t.Helper()
	for _, tt := range cases {
		got, err := parse(tt.in)
		if err == nil {
			t.Errorf("%s(%q) = %v, want an error", name, tt.in, got)
			continue
		}
		if !strings.Contains(err.Error(), tt.says) {
			t.Errorf("%s(%q): error %q does not say %q", name, tt.in, err, tt.says)
		}
	}
}
