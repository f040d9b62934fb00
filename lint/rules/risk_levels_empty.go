package rules

import (
	"fmt"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/closedsets"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// riskLevelsEmpty checks §5.3 with §5.2: risk is REQUIRED on every catalog
// entry and plan step, and the closed-sets guide enumerates every level
// the engine uses. A "Risk levels" table with no row is present (so
// closed-sets-sections is satisfied) yet leaves no level an entry or a
// plan's max_risk could name, and risk-levels-cover has no level to
// aggregate. A catalog-only Language whose guide also lists no entry kind
// and whose catalog is empty is catalog-pure-language's finding: it has
// no names to carry risk, and the fix is to drop catalog.
var riskLevelsEmpty = &lint.Rule{
	ID:       "risk-levels-empty",
	Category: lint.CatRisk,
	Section:  "5.3",
	Severity: report.Error,
	Summary:  "When `catalog` or `plan` is declared, the closed-sets guide's risk levels must list at least one level, since every entry and plan step carries one.",
	Check: func(p *lint.Pass) {
		for _, l := range p.Languages {
			cs, ok := section(l, closedsets.SecRiskLevels)
			if !ok || len(cs.Parsed.Sets.RiskLevels) > 0 {
				continue
			}
			var carrier string
			switch {
			case l.Caps.Has(pilotage.CapPlan):
				carrier = "plan is declared, and every plan names its max_risk and every plan step its risk from this set"
			case l.Caps.Has(pilotage.CapCatalog) && !pureCatalog(l):
				carrier = "catalog is declared, and every catalog entry carries a risk from this set"
			default:
				continue
			}
			p.ReportLine(cs.Guide, cs.Parsed.Sections[closedsets.SecRiskLevels].Line,
				fmt.Sprintf("the \"Risk levels\" table of %s lists no level, but %s (§5.3)", langLabel(l), carrier),
				"add a row for every risk level the engine uses, with its hints, such as \"| safe | true | false | false | Reads only. |\"")
		}
	},
}

func init() { register(riskLevelsEmpty) }
