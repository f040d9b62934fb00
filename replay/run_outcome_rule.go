package replay

import (
	"fmt"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// RuleRunOutcome is the ID of the rule the checks cite as it.
const RuleRunOutcome = "run-outcome"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleRunOutcome, Category: CatOutcomes, Section: "5.7", Severity: report.Error,
	Summary: "The run outcome's ok agrees with its status; a started Run that did not complete is ok: false."}})

// runOutcome checks the run outcome (§5.7, §6.5.6).
func (c *checker) runOutcome(t *traceMembers) (wireOutcome, bool) {
	if t.outcome == nil {
		return wireOutcome{}, false
	}
	o, ok := outcomeOf(t.outcome)
	if !ok {
		c.add(finding{rule: RuleTraceShape, at: t.outcome.site, msg: "the run outcome lacks ok or status", hint: "an outcome is {ok: bool, status: string, error?} (§5.7)"})
		return o, false
	}
	st, okv := *o.Status, *o.OK
	for _, r := range pilotage.ReservedRunStatuses {
		if r.Status == st && r.OK != okv {
			c.add(finding{rule: RuleRunOutcome, at: t.outcome.at("/ok"),
				msg:  fmt.Sprintf("run status %q with ok %v; %s always has ok %v", report.Clip(st), okv, report.Clip(st), r.OK),
				hint: "a started Run that did not complete is ok: false (§6.5.6); only success is ok: true"})
		}
	}
	reserved := isReserved(st)
	switch {
	case c.lang != nil:
		c.listed(t.outcome.site, "run", c.lang.Sets.RunStatuses, st, okv)
	case !reserved && okv:
		c.add(finding{rule: RuleRunOutcome, sev: report.Warning, at: t.outcome.at("/status"),
			msg:  fmt.Sprintf("engine-defined run status %q with ok true; a completed Run reports success", report.Clip(st)),
			hint: "give --snapshot to check the status against the Language's closed-sets guide"})
	}
	return o, true
}
