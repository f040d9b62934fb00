package rules

import (
	"fmt"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/closedsets"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// reservedRunStatuses checks §5.7 with closed-sets-format.md: the run
// status table lists all five reserved statuses, each with its fixed ok
// and side-effects columns, since a client routes on exactly those.
var reservedRunStatuses = &lint.Rule{
	ID:       "reserved-run-statuses",
	Category: lint.CatClosedSets,
	Section:  "5.7",
	Severity: report.Error,
	Summary:  "The run statuses must include `success`, `partial`, `validation_error`, `catalog_drift` and `promotion_drift` with their fixed `ok` and side-effects values.",
	Check: func(p *lint.Pass) {
		for _, l := range p.Languages {
			if cs, ok := section(l, closedsets.SecRunStatuses); ok {
				checkReserved(p, cs, closedsets.SecRunStatuses, cs.Parsed.Sets.RunStatuses, pilotage.ReservedRunStatuses)
			}
		}
	},
}

// checkReserved reports reserved statuses that a status table lacks or
// lists with other columns than their fixed ones.
func checkReserved(p *lint.Pass, cs *lint.ClosedSets, title string, listed []closedsets.Status, reserved []pilotage.StatusSpec) {
	byName := map[string]closedsets.Status{}
	for _, s := range listed {
		byName[s.Status] = s
	}
	var missing []string
	for _, r := range reserved {
		s, ok := byName[r.Status]
		if !ok {
			missing = append(missing, r.Status)
			continue
		}
		if s.OK != r.OK || s.SideEffects != r.SideEffects {
			p.ReportLine(cs.Guide, sectionLine(cs, title, r.Status),
				fmt.Sprintf("the reserved status %q is listed with ok %t and side effects %s; its meaning is fixed: ok %t, side effects %s",
					r.Status, s.OK, effects(s.SideEffects), r.OK, effects(r.SideEffects)),
				fmt.Sprintf("write the row as \"| %s | %t | %s | ... |\"", r.Status, r.OK, effects(r.SideEffects)))
		}
	}
	if len(missing) > 0 {
		p.ReportLine(cs.Guide, cs.Parsed.Sections[title].Line,
			fmt.Sprintf("the %q table lacks the reserved status(es) %s", title, andList(missing)),
			"add a row for each with its fixed columns (closed-sets-format.md)")
	}
}

// effects renders a side-effects column value.
func effects(possible bool) string {
	if possible {
		return "possible"
	}
	return "none"
}

func init() { register(reservedRunStatuses) }
