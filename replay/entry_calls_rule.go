package replay

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleEntryCalls is the ID of the rule the checks cite as it.
const RuleEntryCalls = "entry-calls"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleEntryCalls, Category: CatCorrespondence, Section: "5.8.4", Severity: report.Error,
	Summary: "An entry's calls are listed on its plan step, and a plan step with calls is matched by an entry naming them (reading 5)."}, UsesPlan: true})
