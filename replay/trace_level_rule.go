package replay

import (
	"fmt"

	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// RuleTraceLevel is the ID of the rule the checks cite as it.
const RuleTraceLevel = "trace-level"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleTraceLevel, Category: CatLevels, Section: "5.8.1", Severity: report.Error,
	Summary: "A trace's level is summary or full, and no higher than the Language declares."}})

// level checks the trace level (§5.8.1); an unknown level reads as
// summary (§1.3).
func (c *checker) level(t *traceMembers) {
	if t.level == nil {
		return
	}
	l, ok := stringOf(t.level)
	switch {
	case !ok || (l != "summary" && l != "full"):
		c.add(finding{rule: RuleTraceLevel, at: t.level.site, msg: fmt.Sprintf("level is %s; a trace's level is summary or full", report.Clip(t.level.raw)),
			hint: "none is a request value and never a trace's level; an unknown level is read as summary (§1.3)"})
	case c.lang != nil && c.lang.TraceLevel == "":
		c.add(finding{rule: RuleTraceLevel, at: t.level.site, msg: fmt.Sprintf("a trace of Language %q, which declares no trace_level: it does not declare execute", report.Clip(c.lang.ID)),
			hint: "only a Language that declares execute runs programs and traces them (§4.3 rule 4, §5.8.1)"})
	case l == "full" && c.lang != nil && c.lang.TraceLevel == "summary":
		c.add(finding{rule: RuleTraceLevel, at: t.level.site, msg: "level is full, but the Language declares trace_level summary",
			hint: "the effective level is the lower of the requested level and the declared ceiling (§5.8.1)"})
	}
}
