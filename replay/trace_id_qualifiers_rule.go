package replay

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleTraceIDQualifiers is the ID of the rule the checks cite as it. They
// share the walk over the trace with other rules, so they live in check.go
// (place).
const RuleTraceIDQualifiers = "trace-id-qualifiers"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleTraceIDQualifiers, Category: CatIdentity, Section: "5.8.2", Severity: report.Error,
	Summary: "A step carries one #n per enclosing loop, outermost first, 1-based and consecutive per activation, restarting per outer iteration."}, UsesPlan: true})
