package replay

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleTraceLevel is the ID of the rule the checks cite as it.
const RuleTraceLevel = "trace-level"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleTraceLevel, Category: CatLevels, Section: "5.8.1", Severity: report.Error,
	Summary: "A trace's level is summary or full, and no higher than the Language declares."}})
