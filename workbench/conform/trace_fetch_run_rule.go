package conform

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleTraceFetchRun is the ID of the rule the checks cite as it.
const RuleTraceFetchRun = "trace-fetch-run"

var _ = registry.Register(&report.RuleInfo{ID: RuleTraceFetchRun, Category: "operations", Section: "6.6", Severity: report.Error,
	Summary: "The fetch door returns the Run execute returned: the same run_id and outcome, a trace at no higher level than recorded, and at the same level the same trace envelope."})
