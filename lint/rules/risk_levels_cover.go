package rules

import (
	"fmt"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/closedsets"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// riskLevelsCover checks §5.3 with §5.6: a plan's max_risk is the least
// risky level whose hints cover the aggregate of its steps' hints, and
// the engine-defined risk "MUST be consistent with risk_hints". When no
// level has exactly the hints of some aggregate of the Language's own
// levels, or of a plan without calls, a plan with those hints can only
// name a level whose hints are not its max_risk_hints (a level covering
// them says more risk than they do, so a Host gating on the level and one
// gating on the hints decide differently), so the Language is in error
// (reading 9 as docs/readings.md amends it). pilotage.RiskGaps decides, as it does for
// the PDL compiler and the engine.
var riskLevelsCover = &lint.Rule{
	ID:       "risk-levels-cover",
	Category: lint.CatRisk,
	Section:  "5.3",
	Severity: report.Error,
	Summary:  "Every aggregate a plan can have (of the Language's risk levels, or of no steps when it plans programs) must be exactly some level's hints, so every plan names a `max_risk` consistent with its `max_risk_hints`.",
	Check: func(p *lint.Pass) {
		for _, l := range p.Languages {
			cs, ok := section(l, closedsets.SecRiskLevels)
			if !ok {
				continue
			}
			line := cs.Parsed.Sections[closedsets.SecRiskLevels].Line
			mode := l.Node.Get("execution_mode").Str()
			for _, g := range pilotage.RiskGaps(cs.Parsed.Sets.Levels(), pilotage.PlansPrograms(l.Caps, mode)) {
				what := fmt.Sprintf("%s, the aggregate of the levels %s, so a plan calling steps of each", g.Hints.Text(), andList(g.Levels))
				if len(g.Levels) == 0 {
					what = fmt.Sprintf("%s, the hints of a plan without calls (§5.3 over zero steps), so such a plan", g.Hints.Text())
				}
				p.ReportLine(cs.Guide, line,
					"no risk level has exactly the hints "+what+" has no max_risk consistent with its max_risk_hints",
					fmt.Sprintf("declare a level with exactly those hints, a row such as \"| NAME | %t | %t | %t | … |\"", g.Hints.ReadOnly, g.Hints.Destructive, g.Hints.OpenWorld))
			}
		}
	},
}

func init() { register(riskLevelsCover) }
