package rules

import (
	"fmt"
	"strings"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/lint"
	"github.com/pilotage-dev/pilotage/lint/closedsets"
	"github.com/pilotage-dev/pilotage/lint/report"
)

// riskLevelsCover checks reading 9 of data-model.md: a plan's max_risk is
// the least risky level whose hints cover the aggregate of its steps'
// hints (§5.3, §5.6). When some aggregate of the Language's own levels is
// covered by no level, a plan that combines those steps has no max_risk
// to name.
var riskLevelsCover = &lint.Rule{
	ID:       "risk-levels-cover",
	Category: lint.CatRisk,
	Section:  "5.3",
	Severity: report.Warning,
	Summary:  "Every aggregate of a Language's risk levels should be covered by some level, so every plan can name its `max_risk`.",
	Check: func(p *lint.Pass) {
		for _, l := range p.Languages {
			cs, ok := section(l, closedsets.SecRiskLevels)
			if !ok || len(cs.Parsed.Sets.RiskLevels) == 0 {
				continue
			}
			gaps := pilotage.UncoveredAggregates(cs.Parsed.Sets.Levels())
			if len(gaps) == 0 {
				continue
			}
			texts := make([]string, len(gaps))
			for i, g := range gaps {
				texts[i] = hintsText(g)
			}
			p.ReportLine(cs.Guide, cs.Parsed.Sections[closedsets.SecRiskLevels].Line,
				fmt.Sprintf("no risk level covers the aggregate %s of the Language's own levels, so a plan combining such steps cannot name its max_risk", strings.Join(texts, " or ")),
				fmt.Sprintf("add a level with the hints %s (or riskier on each hint)", hintsText(pilotage.Aggregate(gaps...))))
		}
	},
}

func init() { register(riskLevelsCover) }
