package suppress

import (
	"strings"

	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// RuleSuppressionReason is the ID of the rule a directive without a reason
// breaks.
const RuleSuppressionReason = "suppression-reason"

var _ = registry.Register(&report.RuleInfo{ID: RuleSuppressionReason, Category: category, Section: report.Convention, Severity: report.Error,
	Summary: "A pilotage:ignore comment must say why after --; without a reason it suppresses nothing."})

// checkReason finds a well-formed directive that gives no reason. Such a
// directive suppresses nothing whether or not this rule is on: an
// exception must say why it is acceptable.
func checkReason(d *Directive) (report.Finding, bool) {
	if d.Problem != "" || d.Reason != "" {
		return report.Finding{}, false
	}
	return finding(d, RuleSuppressionReason, "pilotage:ignore without a reason suppresses nothing",
		"say why the finding is acceptable after --: # pilotage:ignore "+strings.Join(d.Rules, ",")+" -- reason"), true
}
