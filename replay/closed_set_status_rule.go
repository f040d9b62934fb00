package replay

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleClosedSetStatus is the ID of the rule the checks cite as it.
const RuleClosedSetStatus = "closed-set-status"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleClosedSetStatus, Category: CatClosedSets, Section: "1.5", Severity: report.Error,
	Summary: "Run and step statuses are listed in the Language's closed-sets guide, with the ok it gives them."}})
