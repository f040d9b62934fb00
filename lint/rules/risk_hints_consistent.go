package rules

import (
	"fmt"

	"github.com/pilotage-dev/pilotage/internal/base/closedsets"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// riskHintsConsistent checks §5.3 as data-model.md reads it: readOnly
// together with destructive is always inconsistent, whether on a catalog
// entry or on a risk level of the closed-sets guide. A Host that gates on
// destructive would still approve, but the claim is self-contradictory.
var riskHintsConsistent = &lint.Rule{
	ID:       "risk-hints-consistent",
	Category: lint.CatRisk,
	Section:  "5.3",
	Severity: report.Error,
	Summary:  "`readOnly: true` together with `destructive: true` is inconsistent, on catalog entries and on risk levels.",
	Check: func(p *lint.Pass) {
		const hint = "an operation that destroys data is not read-only: set \"readOnly\": false, or \"destructive\": false if it only reads"
		for _, l := range p.Languages {
			if cs, ok := section(l, closedsets.SecRiskLevels); ok {
				for _, lv := range cs.Parsed.Sets.RiskLevels {
					if !lv.Hints.Consistent() {
						p.ReportLine(cs.Guide, sectionLine(cs, closedsets.SecRiskLevels, lv.Risk),
							fmt.Sprintf("the risk level %q is both readOnly and destructive", report.Clip(lv.Risk)), hint)
					}
				}
			}
			if l.Catalog == nil {
				continue
			}
			for _, e := range l.Catalog.Entries {
				if h, ok := hintsOf(e.Node.Get("risk_hints")); ok && !h.Consistent() {
					p.Report(e.Pointer()+"/risk_hints", fmt.Sprintf("%s has risk_hints that are both readOnly and destructive", entryLabel(e)), hint)
				}
			}
		}
	},
}

func init() { register(riskHintsConsistent) }
