package rules

import (
	"github.com/pilotage-dev/pilotage/internal/base/closedsets"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// riskLevelKnown checks §5.3 with §1.5: risk is an engine-defined closed
// set enumerated in the closed-sets guide, so every catalog entry's risk
// is one of the guide's risk levels. An unknown value is an error in a 1.0
// or 1.1 manifest and a warning in a later minor one (reading 11).
var riskLevelKnown = &lint.Rule{
	ID:       "risk-level-known",
	Category: lint.CatRisk,
	Section:  "5.3",
	Severity: report.Error,
	Summary:  "Every catalog entry's `risk` must be a level listed in the closed-sets guide's risk levels.",
	Check: func(p *lint.Pass) {
		checkEntryValues(p, "risk", closedsets.SecRiskLevels,
			func(s *closedsets.Sets) []string {
				return valuesOf(s.RiskLevels, func(r closedsets.Risk) string { return r.Risk })
			},
			"a client ignores it and gates on risk_hints alone")
	},
}

func init() { register(riskLevelKnown) }
