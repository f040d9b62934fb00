package replay

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleDeepLoop is the ID of the rule deep replay (deepwalk.go) cites: a loop whose iterations differ in number from its list.
const RuleDeepLoop = "deep-loop"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleDeepLoop, Category: CatDeep, Section: "5.8.2", Severity: report.Error,
	Summary: "With --deep, a loop ran once per element of the list its expression gives over the values the trace records."}})
