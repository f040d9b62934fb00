package rules

import (
	"github.com/pilotage-dev/pilotage/internal/base/closedsets"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// loopDecisionsTable checks §5.8.2 with closed-sets-format.md: a Language
// whose loops use "an Engine-defined summarized decision representation
// documented in the closed-sets guide" lists the took values of that form
// in a table under "Loop decisions". Without it the form is prose no
// checker can read, and replay, knowing the Language, reports each of its
// values as an error. A warning, since the prose still documents the
// form.
var loopDecisionsTable = &lint.Rule{
	ID:       "loop-decisions-table",
	Category: lint.CatClosedSets,
	Section:  "5.8.2",
	Severity: report.Warning,
	Summary:  "The closed-sets guide's Loop decisions section should list the took values of the summarized form in a table, or the form is not machine-readable.",
	Check: func(p *lint.Pass) {
		for _, l := range p.Languages {
			cs := l.ClosedSets()
			if cs == nil || unreadable(cs) {
				continue // closed-sets-guide or closed-sets-format reports why
			}
			sec, ok := cs.Parsed.Sections[closedsets.SecLoopDecisions]
			if !ok || sec.HasTable {
				continue
			}
			p.ReportLine(cs.Guide, sec.Line,
				"the \"Loop decisions\" section has no table of took values, so the summarized form is not machine-readable: a checker that knows the Language accepts no took value but continue and exit",
				"after the prose, add a table \"| took | meaning |\" listing every value the summarized form uses (closed-sets-format.md)")
		}
	},
}

func init() { register(loopDecisionsTable) }
