package replay

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleRunOutcome is the ID of the rule the checks cite as it.
const RuleRunOutcome = "run-outcome"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleRunOutcome, Category: CatOutcomes, Section: "5.7", Severity: report.Error,
	Summary: "The run outcome's ok agrees with its status; a started Run that did not complete is ok: false."}})
