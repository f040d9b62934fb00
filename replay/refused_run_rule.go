package replay

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleRefusedRun is the ID of the rule the checks cite as it. They share the
// walk over the trace with other rules, so they live in replay.go (finish).
const RuleRefusedRun = "refused-run"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleRefusedRun, Category: CatOutcomes, Section: "3.6", Severity: report.Error,
	Summary: "A refused Run (validation_error, catalog_drift, promotion_drift) has no executed steps (reading 8)."}})
