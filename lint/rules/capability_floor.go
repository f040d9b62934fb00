package rules

import (
	"fmt"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// capabilityFloor checks §4.3 rule 1: guides and validate are the least a
// Language declares, since guidance without validation (or validation
// without guidance) is not a Pilotage Language.
var capabilityFloor = &lint.Rule{
	ID:       "capability-floor",
	Category: lint.CatCapabilities,
	Section:  "4.3",
	Severity: report.Error,
	Summary:  "Every Language's effective capability map must declare at least `guides` and `validate`.",
	Check: func(p *lint.Pass) {
		for _, l := range p.Languages {
			for _, c := range []string{pilotage.CapGuides, pilotage.CapValidate} {
				if l.Caps.Has(c) || capMalformed(p, l, c) {
					continue
				}
				reportCap(p, l, c, fmt.Sprintf("%s leaves %q undeclared, but every Language must declare at least \"guides\" and \"validate\"", langLabel(l), c),
					fmt.Sprintf("declare \"%s\": true for this Language; there is no conformant Language without it", c))
			}
		}
	},
}

func init() { register(capabilityFloor) }
