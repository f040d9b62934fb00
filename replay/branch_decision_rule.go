package replay

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleBranchDecision is the ID of the rule the checks cite as it. They share
// the walk over the trace with other rules, so they live in check.go
// (openBranch).
const RuleBranchDecision = "branch-decision"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleBranchDecision, Category: CatControlFlow, Section: "5.8", Severity: report.Error,
	Summary: "A branch entry carries exactly one decision whose took is one of the branch's arms."}, UsesPlan: true})
