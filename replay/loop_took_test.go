package replay

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/closedsets"
)

// TestSummarizedLoopTook: §5.8.2 lets a loop carry "an Engine-defined
// summarized decision representation documented in the closed-sets
// guide", and closed-sets-format.md gives the Loop decisions section a
// table of the took values that form uses. With the Language known, a
// took outside continue, exit and that table is a loop-decisions error: a
// typo such as "contniue" no longer passes because a section exists
// (issue 13, item 6). A section without the table lists no value, so
// there too every other took is an error, whose hint asks for the table
// (lint warns of such a section: loop-decisions-table); without the
// Language any other took is an error. The set is the Language's, not a
// plan's, so a loop of an expanded sub-program, which has no plan step in
// the caller's plan (§5.8.3), is held to it too.
func TestSummarizedLoopTook(t *testing.T) {
	table := closedsets.Parse([]byte("# Closed sets\n\n## Loop decisions\n\nLong loops are summarized.\n\n| took | meaning |\n|---|---|\n| skipped | the middle iterations |\n")).Sets
	prose := closedsets.Parse([]byte("# Closed sets\n\n## Loop decisions\n\nLong loops are summarized as skipped.\n")).Sets
	for _, c := range []struct {
		name string
		lang *Language
		took string
		want int
		hint string // what the finding's hint says, when there is one
	}{
		{"table, a listed value", &Language{Sets: table}, "skipped", 0, ""},
		{"table, a typo", &Language{Sets: table}, "contniue", 1, "table lists every value"},
		{"prose only, its value", &Language{Sets: prose}, "skipped", 1, "prose without a table"},
		{"prose only, a typo", &Language{Sets: prose}, "contniue", 1, "prose without a table"},
		// The Language was given, so the hint does not ask for it.
		{"no section, a typo", &Language{}, "contniue", 1, "closed-sets guide has no Loop decisions section"},
		{"no Language", nil, "skipped", 1, "(give --snapshot)"},
		{"no Language, a typo", nil, "contniue", 1, "(give --snapshot)"},
	} {
		for _, loop := range []string{"each", "off#1/sweep"} {
			t.Run(c.name+"/"+loop, func(t *testing.T) {
				trace := baseTrace(`{"id": "off#1/sweep", "kind": "loop", "outcome": {"ok": true, "status": "success"}, "decisions": [{"at": "off#1/sweep", "took": "continue"}, {"at": "off#1/sweep", "took": "exit"}]}`)
				// The loop under test takes c.took between its continue
				// and its exit.
				trace = strings.Replace(trace, fmt.Sprintf(`{"at": %q, "took": "continue"}, `, loop), fmt.Sprintf(`{"at": %q, "took": "continue"}, {"at": %[1]q, "took": %q}, `, loop, c.took), 1)
				var got, hints []string
				for _, f := range Replay(basePlan(t), "t.json", strings.NewReader(trace), Options{Language: c.lang}).Findings {
					if f.Rule == RuleLoopDecisions {
						got, hints = append(got, f.Message), append(hints, f.Hint)
					}
				}
				if len(got) != c.want {
					t.Errorf("took %q: %d loop-decisions findings %q, want %d", c.took, len(got), got, c.want)
				}
				if len(got) > 0 && c.lang != nil && len(c.lang.Sets.LoopTook) > 0 && !strings.Contains(got[0], "continue, exit or skipped") {
					t.Errorf("the message does not name the values the Language allows: %q", got[0])
				}
				if len(hints) > 0 && !strings.Contains(hints[0], c.hint) {
					t.Errorf("hint %q, want it to say %q", hints[0], c.hint)
				}
			})
		}
	}
}
