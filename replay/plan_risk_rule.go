package replay

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RulePlanRisk is the ID of the rule the checks cite as it. They share the
// walk over the trace with other rules, so they live in planrisk.go.
const RulePlanRisk = "plan-risk"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RulePlanRisk, Category: CatPlan, Section: "5.3", Severity: report.Error,
	Summary: "The plan carries max_risk and max_risk_hints, every step its risk and risk_hints; hints are consistent, max_risk_hints is their aggregate, and with the Language every risk is a declared level with its hints and max_risk is the level whose hints are exactly the aggregate."}})
