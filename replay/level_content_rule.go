package replay

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleLevelContent is the ID of the rule the checks cite as it.
const RuleLevelContent = "level-content"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleLevelContent, Category: CatLevels, Section: "5.8.1", Severity: report.Error,
	Summary: "At full every non-control-flow entry that made its call carries input; at summary no entry does (reading 6, amended)."}})
