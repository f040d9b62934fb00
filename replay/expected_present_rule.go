package replay

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleExpectedPresent is the ID of the rule the checks cite as it. They
// share the walk over the trace with other rules, so they live in check.go
// (closeFrame, endIteration).
const RuleExpectedPresent = "expected-present"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleExpectedPresent, Category: CatCorrespondence, Section: "5.8.4", Severity: report.Error,
	Summary: "A successful Run's trace holds every expected step, loop-body steps once per iteration (reading 1)."}, UsesPlan: true})
