package replay

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleDeepDrift is the ID of the rule deep replay (deepsub.go) cites: expanded entries of a promoted program that do not follow the body the Language defines.
const RuleDeepDrift = "deep-drift"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleDeepDrift, Category: CatDeep, Section: "5.4", Severity: report.Error,
	Summary: "With --deep, the expanded entries of a promoted program follow the body the Language defines for its reference."}})
