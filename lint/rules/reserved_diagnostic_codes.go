package rules

import (
	"fmt"
	"slices"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/closedsets"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// reservedDiagnosticCodes checks §5.5 (and §5.2): every Language's closed
// diagnostic set contains the reserved codes, and the closed-sets guide
// lists them, so a client can branch on them for any Language.
var reservedDiagnosticCodes = &lint.Rule{
	ID:       "reserved-diagnostic-codes",
	Category: lint.CatClosedSets,
	Section:  "5.5",
	Severity: report.Error,
	Summary:  "The closed-sets guide's diagnostic codes must include every reserved code: `syntax`, `unknown_name`, `constraint`, `input_binding`, `context_binding`.",
	Check: func(p *lint.Pass) {
		for _, l := range p.Languages {
			cs, ok := section(l, closedsets.SecDiagnosticCodes)
			if !ok {
				continue
			}
			listed := valuesOf(cs.Parsed.Sets.DiagnosticCodes, func(c closedsets.Code) string { return c.Code })
			var missing []string
			for _, c := range pilotage.ReservedCodes {
				if !slices.Contains(listed, c) {
					missing = append(missing, c)
				}
			}
			if len(missing) == 0 {
				continue
			}
			p.ReportLine(cs.Guide, cs.Parsed.Sections[closedsets.SecDiagnosticCodes].Line,
				fmt.Sprintf("the \"Diagnostic codes\" table lacks the reserved code(s) %s, which every Language's diagnostic set contains (§5.5)", andList(missing)),
				fmt.Sprintf("add a row for each, such as \"| %s | ... |\"; constraint is the fallback when no other code fits", missing[0]))
		}
	},
}

func init() { register(reservedDiagnosticCodes) }
