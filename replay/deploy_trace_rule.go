package replay

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleDeployTrace is the ID of the rule the checks cite as it.
const RuleDeployTrace = "deploy-trace"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleDeployTrace, Category: CatCorrespondence, Section: "5.8.4", Severity: report.Info,
	Summary: "A deploy installation trace is not matched against the body plan."}})

// installation reports whether the trace describes a deploy
// installation, which is not matched against the body plan (§5.8.4).
func (c *checker) installation(t *traceMembers) bool {
	// A mode that is not a string is none; one too long to be kept is
	// a mode, only not one of the three (cutString).
	mode, _ := stringOf(t.mode)
	at := c.traceAt
	if t.mode != nil {
		at = t.mode.site
	}
	switch {
	case mode == "deploy":
		c.add(finding{rule: RuleDeployTrace, at: at, msg: "a deploy installation trace: identity, levels and outcome checked; not matched against the body plan",
			hint: "body-plan correspondence is checked against a test_run trace (§6.5.7)"})
		return true
	case c.plan.Mode == "deploy" && mode == "" && !cutString(t.mode):
		c.add(finding{rule: RuleDeployTrace, at: at, msg: "the plan describes a deployed body and the trace has no mode: taken as an installation trace, not matched against the plan",
			hint: "a test run's trace carries mode test_run; only those are matched against a deploy plan (§5.8.4)"})
		return true
	}
	return false
}
