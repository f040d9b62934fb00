package replay

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleTraceMode is the ID of the rule the checks cite as it.
const RuleTraceMode = "trace-mode"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleTraceMode, Category: CatCorrespondence, Section: "6.5.7", Severity: report.Error,
	Summary: "A trace's mode is immediate, deploy or test_run, one the Language's execution_mode and execute.test_run allow."}})
