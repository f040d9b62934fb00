package replay

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleExpectedSet is the ID of the rule the checks cite as it.
const RuleExpectedSet = "expected-set"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleExpectedSet, Category: CatCorrespondence, Section: "5.8.4", Severity: report.Error,
	Summary: "Every unprefixed entry maps to the expected set of the decisions taken (readings 1 and 4)."}, UsesPlan: true})
