package replay

import (
	"fmt"
	"slices"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// RuleTraceMode is the ID of the rule the checks cite as it.
const RuleTraceMode = "trace-mode"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleTraceMode, Category: CatCorrespondence, Section: "6.5.7", Severity: report.Error,
	Summary: "A trace's mode is immediate, deploy or test_run, one the Language's execution_mode and execute.test_run allow."}})

// mode checks the trace's mode: a closed set, and with the Language one
// its execution_mode (§6.5.7) and execute.test_run allow.
func (c *checker) mode(t *traceMembers) {
	if t.mode == nil {
		return
	}
	m, ok := stringOf(t.mode)
	switch {
	case !ok || !slices.Contains(traceModes, m):
		c.add(finding{rule: RuleTraceMode, at: t.mode.site, msg: fmt.Sprintf("mode is %s; a trace's mode is immediate, deploy or test_run", report.Clip(t.mode.raw))})
	case c.lang == nil:
	case m == pilotage.ModeTestRun:
		if !c.lang.TestRun {
			c.add(finding{rule: RuleTraceMode, at: t.mode.site, msg: fmt.Sprintf("a test_run trace, but Language %q does not declare execute.test_run", report.Clip(c.lang.ID)),
				hint: "test_run is accepted only when execute.test_run is declared (§6.5)"})
		}
	case c.lang.ExecutionMode != "" && c.lang.ExecutionMode != pilotage.ModeBoth && m != c.lang.ExecutionMode:
		c.add(finding{rule: RuleTraceMode, at: t.mode.site, msg: fmt.Sprintf("a %s trace, but Language %q has execution_mode %s", m, report.Clip(c.lang.ID), c.lang.ExecutionMode),
			hint: "a Language runs programs in its declared execution mode; both allows immediate and deploy (§6.5.7)"})
	}
}
