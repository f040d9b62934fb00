package replay

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleDeepOutput is the ID of the rule deep replay (deepwalk.go) cites: an output the program does not give.
const RuleDeepOutput = "deep-output"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleDeepOutput, Category: CatDeep, Section: "5.7", Severity: report.Error,
	Summary: "With --deep, a construct's output and the Run's output are what the program gives over the values the trace records."}})
