package replay

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleDeepInput is the ID of the rule deep replay (deepwalk.go) cites: a call input that is not its arguments' values.
const RuleDeepInput = "deep-input"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleDeepInput, Category: CatDeep, Section: "5.8", Severity: report.Error,
	Summary: "With --deep, a call's recorded input is its arguments evaluated over the values the trace records."}})
