package rules

import (
	"fmt"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// testRunMode checks a declaration §4.3 rule 6 forbids when it cannot be
// provided: execute.test_run evaluates "the deploying program without side
// effects" (§6.5.7), the way to observe a deployed body, so a Language
// whose only execution mode is "immediate" has nothing to test-run. The
// spec does not name this pairing, so, like truthful-declarations' other
// inferred claims, it is a warning.
var testRunMode = &lint.Rule{
	ID:       "test-run-mode",
	Category: lint.CatCapabilities,
	Section:  "6.5.7",
	Severity: report.Warning,
	Summary:  "`execute.test_run` should be declared only by a Language whose `execution_mode` is \"deploy\" or \"both\": a test run evaluates a deploying program.",
	Check: func(p *lint.Pass) {
		for _, l := range p.Languages {
			mode, ok := stringField(l, "execution_mode")
			if !ok || mode != pilotage.ModeImmediate || !l.Caps.HasSub(pilotage.CapExecute, pilotage.SubTestRun) {
				continue
			}
			ptr, _ := capSite(p, l, pilotage.CapExecute)
			p.ReportKey(ptr+"/"+pilotage.SubTestRun,
				fmt.Sprintf("%s declares \"execute\": {\"test_run\": true} with \"execution_mode\": \"immediate\"; a test run evaluates a deploying program without side effects, and an immediate Language deploys none", langLabel(l)),
				"drop \"test_run\", or declare \"execution_mode\": \"deploy\" or \"both\" if programs are installed to run later")
		}
	},
}

func init() { register(testRunMode) }
