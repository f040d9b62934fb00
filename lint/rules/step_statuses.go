package rules

import (
	"fmt"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/closedsets"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// stepStatuses checks §5.7 as reading 10 of data-model.md reads it: the
// step status table lists the reserved statuses a step takes (success,
// and partial for a sub-program call that stopped early) with their fixed
// columns, and never the refusal statuses, which describe a Run that
// never started and so have no steps.
var stepStatuses = &lint.Rule{
	ID:       "step-statuses",
	Category: lint.CatClosedSets,
	Section:  "5.7",
	Severity: report.Error,
	Summary:  "The step statuses must include `success` and `partial` with their fixed columns and must not include the run-only refusal statuses.",
	Check: func(p *lint.Pass) {
		for _, l := range p.Languages {
			cs, ok := section(l, closedsets.SecStepStatuses)
			if !ok {
				continue
			}
			checkReserved(p, cs, closedsets.SecStepStatuses, cs.Parsed.Sets.StepStatuses, pilotage.ReservedStepStatuses)
			for _, s := range cs.Parsed.Sets.StepStatuses {
				if pilotage.IsRefusal(s.Status) {
					p.ReportLine(cs.Guide, sectionLine(cs, closedsets.SecStepStatuses, s.Status),
						fmt.Sprintf("%q is a step status here, but it marks a refused Run, which executes no steps (§3.6); it is a run status only", report.Clip(s.Status)),
						"remove the row from \"Step statuses\" (it belongs in \"Run statuses\")")
				}
			}
		}
	},
}

func init() { register(stepStatuses) }
