package rules

import (
	"fmt"

	"github.com/pilotage-dev/pilotage/lint"
	"github.com/pilotage-dev/pilotage/lint/closedsets"
	"github.com/pilotage-dev/pilotage/lint/report"
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
			for _, e := range l.Catalog.Entries {
				hints, ok := hintsOf(e.Node.Get("risk_hints"))
				if !ok {
					continue
				}
				risk := e.Node.Get("risk").String()
				for _, lv := range cs.Parsed.Sets.RiskLevels {
					if lv.Risk != risk || lv.Hints == hints {
						continue
					}
					hint := fmt.Sprintf("set \"risk_hints\": %s", hintsText(lv.Hints))
					for _, other := range cs.Parsed.Sets.RiskLevels {
						if other.Hints == hints {
							hint += fmt.Sprintf(", or \"risk\": %q if these hints are right", other.Risk)
							break
						}
					}
					p.Report(e.Pointer+"/risk_hints",
						fmt.Sprintf("%s has risk %q, whose hints are %s in the closed-sets guide, but its risk_hints are %s",
							entryLabel(e), risk, hintsText(lv.Hints), hintsText(hints)),
						hint)
				}
			}
		}
	},
}

func init() { register(riskHintsMatch) }
