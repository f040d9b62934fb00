package replay

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleControlFlowCalls is the ID of the rule the checks cite as it. They
// share the walk over the trace with other rules, so they live in check.go
// (entry).
const RuleControlFlowCalls = "control-flow-calls"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleControlFlowCalls, Category: CatControlFlow, Section: "5.6", Severity: report.Error,
	Summary: "Branch and loop entries carry no calls."}, UsesPlan: true})
