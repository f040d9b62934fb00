package replay

import (
	"fmt"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// RuleStepOutcome is the ID of the rule the checks cite as it.
const RuleStepOutcome = "step-outcome"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleStepOutcome, Category: CatOutcomes, Section: "5.7", Severity: report.Error,
	Summary: "A step outcome's ok agrees with its status; run-only statuses never appear on steps (reading 10)."}})

// outcome checks a step outcome (§5.7, reading 10).
func (c *checker) outcome(e *entry) {
	o := e.w.Outcome
	if o == nil {
		c.add(finding{rule: RuleTraceShape, at: e.site, msg: fmt.Sprintf("trace step %q has no outcome", report.Clip(*e.w.ID)), hint: "every trace step carries an outcome {ok, status} (§5.8)"})
		return
	}
	if o.OK == nil || o.Status == nil {
		c.add(finding{rule: RuleTraceShape, at: e.at("/outcome"), msg: fmt.Sprintf("outcome of %q lacks ok or status", report.Clip(*e.w.ID))})
		return
	}
	st, ok := *o.Status, *o.OK
	switch {
	case pilotage.IsRefusal(st):
		c.add(finding{rule: RuleStepOutcome, at: e.at("/outcome/status"),
			msg:  fmt.Sprintf("step %q has status %q, which only a refused Run has", report.Clip(*e.w.ID), report.Clip(st)),
			hint: "validation_error, catalog_drift and promotion_drift are run-level only (reading 10)"})
	case st == pilotage.StatusSuccess && !ok, st == pilotage.StatusPartial && ok:
		c.add(finding{rule: RuleStepOutcome, at: e.at("/outcome/ok"),
			msg: fmt.Sprintf("step %q has status %q with ok %v; %s always has ok %v", report.Clip(*e.w.ID), report.Clip(st), ok, report.Clip(st), !ok)})
	}
	if c.lang != nil {
		c.listed(e.at("/outcome"), "step", c.lang.Sets.StepStatuses, st, ok)
	}
}
