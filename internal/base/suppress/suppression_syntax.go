package suppress

import (
	"fmt"
	"slices"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/base/suggest"
)

// RuleSuppressionSyntax is the ID of the rule a malformed directive breaks.
const RuleSuppressionSyntax = "suppression-syntax"

var _ = registry.Register(&report.RuleInfo{ID: RuleSuppressionSyntax, Category: category, Section: report.Convention, Severity: report.Error,
	Summary: "A pilotage:ignore comment must name known rules, comma-separated, then -- and a reason."})

// checkSyntax finds what is wrong with d's rule list: what ParseComment
// found, or a rule that is not in known (with the nearest). It records
// the problem in d, which then suppresses nothing.
func checkSyntax(d *Directive, known []string) (report.Finding, bool) {
	if d.Problem == "" {
		for _, id := range d.Rules {
			if !slices.Contains(known, id) {
				d.Problem = fmt.Sprintf("unknown rule %q", id)
				if near := suggest.Closest(id, known); near != "" {
					d.Problem += fmt.Sprintf(" (did you mean %q?)", near)
				}
				break
			}
		}
	}
	if d.Problem == "" {
		return report.Finding{}, false
	}
	return finding(d, RuleSuppressionSyntax, "malformed pilotage:ignore comment: "+d.Problem,
		"write # pilotage:ignore RULE[,RULE] -- reason, with the IDs --list-rules prints"), true
}
