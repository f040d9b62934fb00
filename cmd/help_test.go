package cmd

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestEveryVerbHelpTeaches holds every verb to what the root help
// promises ("pilotage COMMAND --help: what a command does, its exit
// codes, examples"): a long description, an "Exit status" paragraph and
// at least one example, and flags named alike across verbs, so a user who
// learned -f and -o on one verb is not refused them on another.
func TestEveryVerbHelpTeaches(t *testing.T) {
	for _, c := range newRoot().Commands() {
		if c.Name() == "help" || c.Name() == "completion" {
			continue // cobra's own
		}
		if c.Long == "" {
			t.Errorf("%s --help has no description beyond its one-line summary", c.Name())
		}
		// Prose is wrapped for an 80-column terminal; indented lines
		// (tables, examples) may run longer.
		for _, line := range strings.Split(c.Long, "\n") {
			if n := utf8.RuneCountInString(line); n > 80 && !strings.HasPrefix(line, " ") {
				t.Errorf("%s --help has a line of %d characters: %q", c.Name(), n, line)
			}
		}
		if !strings.Contains(c.Long, "Exit status: 0 ") {
			t.Errorf("%s --help does not give its exit status", c.Name())
		}
		if !strings.Contains(c.Example, "pilotage "+c.Name()) {
			t.Errorf("%s --help shows no example of itself", c.Name())
		}
		if f := c.Flags().Lookup("format"); f != nil && f.Shorthand != "f" {
			t.Errorf("%s --format has shorthand %q; every other verb's is -f", c.Name(), f.Shorthand)
		}
		if f := c.Flags().Lookup("output"); f != nil && f.Shorthand != "o" {
			t.Errorf("%s --output has shorthand %q; every other verb's is -o", c.Name(), f.Shorthand)
		}
		// A verb whose output can be JSON can write it to a file, as
		// lint, replay and conform do, instead of refusing -o.
		if f := c.Flags().Lookup("format"); f != nil && c.Name() != "version" && c.Flags().Lookup("output") == nil {
			t.Errorf("%s takes --format but not -o/--output FILE", c.Name())
		}
	}
}
