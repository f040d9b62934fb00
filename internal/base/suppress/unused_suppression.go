package suppress

import (
	"fmt"

	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// RuleUnusedSuppression is the ID of the rule a directive that suppresses
// nothing breaks.
const RuleUnusedSuppression = "unused-suppression"

var _ = registry.Register(&report.RuleInfo{ID: RuleUnusedSuppression, Category: category, Section: report.Convention, Severity: report.Warning,
	Summary: "A pilotage:ignore comment must suppress a finding of each rule it names."})

// checkUnused finds each rule of an applying directive that suppressed
// nothing (used holds those that did), among the rules that ran on its
// file: one that did not (turned off by --disable, or a lint rule on a
// PDL file that failed to compile) had nothing to suppress.
func checkUnused(d *Directive, used map[string]bool, ran func(id string) bool) []report.Finding {
	if !d.applies() {
		return nil
	}
	var out []report.Finding
	for _, id := range d.Rules {
		if !used[id] && ran(id) {
			out = append(out, finding(d, RuleUnusedSuppression,
				fmt.Sprintf("pilotage:ignore %s suppresses nothing: no %s finding in the statement it covers", id, id),
				"remove it, or move it to the statement the finding is on"))
		}
	}
	return out
}
