package replay

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleDeepAfterFailure is the ID of the rule deep replay (deepwalk.go) cites: a step traced after a failure that should have stopped the Run.
const RuleDeepAfterFailure = "deep-after-failure"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleDeepAfterFailure, Category: CatDeep, Section: "5.7", Severity: report.Error,
	Summary: "With --deep, no step runs after a failed step: its failure ends the Run."}})
