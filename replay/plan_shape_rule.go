package replay

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RulePlanShape is the ID of the rule the checks cite as it. They share the
// walk over the trace with other rules, so they live in plan.go (LoadPlan
// and its planBuilder).
const RulePlanShape = "plan-shape"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RulePlanShape, Category: CatPlan, Section: "5.6", Severity: report.Error,
	Summary: "The plan is a plan: unique step ids, arm and loop references to branch and loop steps, labels listed in arms, no calls on control flow, a mode of immediate or deploy."}})
