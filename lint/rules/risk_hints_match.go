package rules

import (
	"fmt"

	pilotage "github.com/pilotage-dev/pilotage"

	"github.com/pilotage-dev/pilotage/internal/base/closedsets"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// riskHintsMatch checks §5.3 as data-model.md reads it: each risk level
// corresponds to exactly one risk_hints triple, listed in the closed-sets
// guide, and an entry's risk_hints equal the triple of its risk. A risk
// label that disagrees with its hints misleads whoever reads the label,
// while the Host gates on the hints.
var riskHintsMatch = &lint.Rule{
	ID:       "risk-hints-match",
	Category: lint.CatRisk,
	Section:  "5.3",
	Severity: report.Error,
	Summary:  "A catalog entry's `risk_hints` must equal the hints the closed-sets guide gives its `risk` level.",
	Check: func(p *lint.Pass) {
		for _, l := range p.Languages {
			cs, ok := section(l, closedsets.SecRiskLevels)
			if !ok || l.Catalog == nil {
				continue
			}
			// The guide's levels by name, and the first level of each
			// triple for the hint; a level listed twice is the format
			// rule's finding, and the first row is the one read.
			levels := map[string]pilotage.RiskHints{}
			byHints := map[pilotage.RiskHints]string{}
			for _, lv := range cs.Parsed.Sets.RiskLevels {
				levels[lv.Risk] = lv.Hints
				if _, ok := byHints[lv.Hints]; !ok {
					byHints[lv.Hints] = lv.Risk
				}
			}
			for _, e := range l.Catalog.Entries {
				hints, ok := hintsOf(e.Node.Get("risk_hints"))
				risk := e.Node.Get("risk").String()
				want, known := levels[risk]
				if !ok || !known || want == hints {
					continue
				}
				hint := fmt.Sprintf("set \"risk_hints\": %s", want.Text())
				if other, ok := byHints[hints]; ok {
					hint += fmt.Sprintf(", or \"risk\": %q if these hints are right", report.Clip(other))
				}
				p.Report(e.Pointer()+"/risk_hints",
					fmt.Sprintf("%s has risk %q, whose hints are %s in the closed-sets guide, but its risk_hints are %s",
						entryLabel(e), report.Clip(risk), want.Text(), hints.Text()),
					hint)
			}
		}
	},
}

func init() { register(riskHintsMatch) }
