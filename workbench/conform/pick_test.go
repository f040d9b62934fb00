package conform

import (
	"fmt"
	"strings"
	"testing"

	pilotage "github.com/pilotage-dev/pilotage"
)

// pickLanguage takes the named Language, or the only one, and otherwise
// says what the server has — never an empty list.
func TestPickLanguage(t *testing.T) {
	langs := func(n int) *pilotage.Manifest {
		m := &pilotage.Manifest{}
		for i := range n {
			m.Languages = append(m.Languages, pilotage.LanguageEntry{ID: fmt.Sprintf("l%d/v1", i)})
		}
		return m
	}
	for _, c := range []struct {
		man  *pilotage.Manifest
		id   string
		want int
		err  string
	}{
		{langs(1), "", 0, ""},
		{langs(3), "l2/v1", 2, ""},
		{langs(0), "", 0, "the server lists no Languages"},
		{langs(0), "x/v1", 0, "the server lists no Languages"},
		{langs(2), "", 0, "the server has 2 Languages (l0/v1, l1/v1); choose one with --language"},
		{langs(12), "x/v1", 0, `--language "x/v1": the server has no such Language (it has l0/v1, l1/v1, l2/v1, l3/v1, l4/v1, l5/v1, l6/v1, l7/v1, l8/v1, l9/v1 and 2 more)`},
	} {
		got, err := pickLanguage(c.man, c.id)
		switch {
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("%d Languages, %q: %d %v, want %d", len(c.man.Languages), c.id, got, err, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%d Languages, %q: %v, want an error saying %q", len(c.man.Languages), c.id, err, c.err)
		}
	}
}
