package conform

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleNotFoundIndistinguishable is the ID of the rule the checks cite as it.
const RuleNotFoundIndistinguishable = "not-found-indistinguishable"

var _ = registry.Register(&report.RuleInfo{ID: RuleNotFoundIndistinguishable, Category: "channels", Section: "6.6", Severity: report.Error,
	Summary: "With --execute, when the Language declares trace_fetch: a fetch of a refused (never retained) Run and a fetch of an unknown run_id give the same request error: the same kind and the same message once the run_id is taken out."})
