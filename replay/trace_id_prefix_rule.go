package replay

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleTraceIDPrefix is the ID of the rule the checks cite as it.
const RuleTraceIDPrefix = "trace-id-prefix"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleTraceIDPrefix, Category: CatIdentity, Section: "5.8.2", Severity: report.Error,
	Summary: "A / prefix names the calling entry that comes right before its expanded entries."}})
