package replay

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleStepOutcome is the ID of the rule the checks cite as it.
const RuleStepOutcome = "step-outcome"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleStepOutcome, Category: CatOutcomes, Section: "5.7", Severity: report.Error,
	Summary: "A step outcome's ok agrees with its status; run-only statuses never appear on steps (reading 10)."}})
