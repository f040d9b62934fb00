package rules

import (
	"fmt"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// capabilityDependencies checks §4.3 rule 3: a declared capability's
// prerequisite (the "depends on" column of §4.1) is declared too. The
// finding points at the dependent capability, the declaration that claims
// more than the Language can back.
var capabilityDependencies = &lint.Rule{
	ID:       "capability-dependencies",
	Category: lint.CatCapabilities,
	Section:  "4.3",
	Severity: report.Error,
	Summary:  "A declared capability's prerequisite must be declared: validate needs guides, plan and execute need validate, trace_fetch needs execute.",
	Check: func(p *lint.Pass) {
		for _, l := range p.Languages {
			for _, c := range pilotage.CapabilityTable {
				if c.DependsOn == "" || !l.Caps.Has(c.Name) || l.Caps.Has(c.DependsOn) || capMalformed(p, l, c.DependsOn) {
					continue
				}
				reportCap(p, l, c.Name,
					fmt.Sprintf("%s declares %q but not %q, which %q requires", langLabel(l), c.Name, c.DependsOn, c.Name),
					fmt.Sprintf("declare \"%s\": true as well, or drop %q", c.DependsOn, c.Name))
			}
		}
	},
}

func init() { register(capabilityDependencies) }
