package replay

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleTraceIDSyntax is the ID of the rule the checks cite as it. They share
// the walk over the trace with other rules, so they live in check.go
// (entry).
const RuleTraceIDSyntax = "trace-id-syntax"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleTraceIDSyntax, Category: CatIdentity, Section: "5.8.2", Severity: report.Error,
	Summary: "A trace step id is base#n…, optionally prefixed by calling ids and /, with non-empty bases and positive qualifiers."}})
