package rules

import (
	"fmt"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/closedsets"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/base/suggest"
	"github.com/pilotage-dev/pilotage/lint"
)

// engineStatuses checks §5.7 for the engine-defined statuses of both
// status tables. An engine may name a more specific status only for a
// failure: one with ok true stands in for `success`, and one spelled like
// a reserved status (`Success`, `catalog-drift`) substitutes an engine
// name for a reserved condition; both are forbidden. That every engine
// status documents ok and side effects is the table format's own
// requirement (closed-sets-format reports an empty cell).
var engineStatuses = &lint.Rule{
	ID:       "engine-statuses",
	Category: lint.CatClosedSets,
	Section:  "5.7",
	Severity: report.Error,
	Summary:  "Engine-defined statuses must be failures (`ok` false) and must not be variants of a reserved status's name.",
	Check: func(p *lint.Pass) {
		reserved := valuesOf(pilotage.ReservedRunStatuses, func(s pilotage.StatusSpec) string { return s.Status })
		for _, l := range p.Languages {
			for _, title := range []string{closedsets.SecRunStatuses, closedsets.SecStepStatuses} {
				cs, ok := section(l, title)
				if !ok {
					continue
				}
				listed := cs.Parsed.Sets.RunStatuses
				if title == closedsets.SecStepStatuses {
					listed = cs.Parsed.Sets.StepStatuses
				}
				for _, s := range listed {
					if isReserved(s.Status) {
						continue
					}
					line := sectionLine(cs, title, s.Status)
					if r := suggest.Closest(s.Status, reserved); r != "" {
						p.ReportLine(cs.Guide, line,
							fmt.Sprintf("the engine-defined status %q in %q is a variant of the reserved status %q; §5.7 forbids engine-specific names for the reserved conditions", report.Clip(s.Status), report.Clip(title), r),
							fmt.Sprintf("use %q exactly, or choose a name that does not resemble it", r))
						continue
					}
					if s.OK {
						p.ReportLine(cs.Guide, line,
							fmt.Sprintf("the engine-defined status %q in %q has ok true; only \"success\" reports a completed Run or step, and engine statuses describe failures (§5.7)", report.Clip(s.Status), report.Clip(title)),
							fmt.Sprintf("report completion as \"success\", or set ok false if %q is a failure", report.Clip(s.Status)))
					}
				}
			}
		}
	},
}

// isReserved reports whether status is one of the five reserved statuses.
func isReserved(status string) bool {
	return status == pilotage.StatusSuccess || status == pilotage.StatusPartial || pilotage.IsRefusal(status)
}

func init() { register(engineStatuses) }
