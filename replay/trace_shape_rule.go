package replay

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleTraceShape is the ID of the rule the checks cite as it. They share the
// walk over the trace with other rules, so they live in the walk: stream.go
// (shape problems it meets), check.go (entry, badEntry, duration) and
// replay.go (finish, noTrace).
const RuleTraceShape = "trace-shape"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleTraceShape, Category: CatDocument, Section: "5.8", Severity: report.Error,
	Summary: "A trace file holds a trace, an execute response or a trace-fetch response, with every required member and each step an object with an id and an outcome."}})
