package replay

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleTraceJSON is the ID of the rule the checks cite as it. They share the
// walk over the trace with other rules, so they live in replay.go (finish).
const RuleTraceJSON = "trace-json"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleTraceJSON, Category: CatDocument, Section: "5.8", Severity: report.Error,
	Summary: "A trace file is well-formed JSON."}})
