package replay

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleExpectedReached is the ID of the rule the checks cite as it. They
// share the walk over the trace with other rules, so they live in check.go
// (closeFrame, endIteration).
const RuleExpectedReached = "expected-reached"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleExpectedReached, Category: CatCorrespondence, Section: "5.8.4", Severity: report.Warning,
	Summary: "In a Run that did not complete, every expected step that execution passed appears: those before a later entry of their sequence, and every step of an iteration or arm that a later entry closed."}, UsesPlan: true})
