package replay

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleLoopDecisions is the ID of the rule the checks cite as it. They share
// the walk over the trace with other rules, so they live in check.go
// (openLoop, closeFrame).
const RuleLoopDecisions = "loop-decisions"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleLoopDecisions, Category: CatControlFlow, Section: "5.8.2", Severity: report.Error,
	Summary: "A loop entry's continue/exit decisions agree with the iterations its body ran; a zero-iteration loop has exactly one exit."}, UsesPlan: true})
