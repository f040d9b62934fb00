package replay

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleUnselectedArm is the ID of the rule the checks cite as it. They share
// the walk over the trace with other rules, so they live in check.go
// (place).
const RuleUnselectedArm = "unselected-arm"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleUnselectedArm, Category: CatCorrespondence, Section: "5.8.4", Severity: report.Error,
	Summary: "Steps of branch arms that were not selected are absent."}, UsesPlan: true})
