package replay

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleDeployTrace is the ID of the rule the checks cite as it.
const RuleDeployTrace = "deploy-trace"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleDeployTrace, Category: CatCorrespondence, Section: "5.8.4", Severity: report.Info,
	Summary: "A deploy installation trace is not matched against the body plan."}})
