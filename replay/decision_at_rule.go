package replay

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleDecisionAt is the ID of the rule the checks cite as it.
const RuleDecisionAt = "decision-at"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleDecisionAt, Category: CatControlFlow, Section: "5.8", Severity: report.Error,
	Summary: "A decision's at is its construct's step identifier or the complete trace id of its entry (reading 2, amended)."}})
