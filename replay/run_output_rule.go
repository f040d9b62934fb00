package replay

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleRunOutput is the ID of the rule the checks cite as it. They share the
// walk over the trace with other rules, so they live in response.go
// (response).
const RuleRunOutput = "run-output"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleRunOutput, Category: CatOutcomes, Section: "6.5", Severity: report.Error,
	Summary: "A response carries output only when its outcome is ok."}})
