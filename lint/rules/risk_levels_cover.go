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
// the engine-defined risk "MUST be consistent with risk_hints". When some
// aggregate of the Language's own levels is covered by no level, a plan
// combining those steps can only name a level whose hints are not its
// max_risk_hints, so the Language is in error (reading 9 as
// docs/readings.md amends it). pilotage.RiskGaps decides, as it does for
// the PDL compiler and the engine.
var riskLevelsCover = &lint.Rule{
	ID:       "risk-levels-cover",
	Category: lint.CatRisk,
	Section:  "5.3",
	Severity: report.Error,
	Summary:  "Every aggregate of a Language's risk levels must be covered by some level, so every plan names a `max_risk` consistent with its `max_risk_hints`.",
	Check: func(p *lint.Pass) {
		for _, l := range p.Languages {
			cs, ok := section(l, closedsets.SecRiskLevels)
			if !ok {
				continue
			}
			line := cs.Parsed.Sections[closedsets.SecRiskLevels].Line
			for _, g := range pilotage.RiskGaps(cs.Parsed.Sets.Levels()) {
				p.ReportLine(cs.Guide, line,
					fmt.Sprintf("no risk level covers %s, the aggregate of the levels %s, so a plan calling steps of each has no max_risk consistent with its max_risk_hints", g.Hints.Text(), andList(g.Levels)),
					fmt.Sprintf("declare a level with exactly those hints, a row such as \"| NAME | %t | %t | %t | … |\"", g.Hints.ReadOnly, g.Hints.Destructive, g.Hints.OpenWorld))
			}
		}
	},
}

func init() { register(riskLevelsCover) }
