package rules

import (
	"fmt"
	"strings"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/closedsets"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// riskLevelsDistinct checks §5.3 with reading 9 of data-model.md: a
// plan's max_risk is the least risky declared level whose hints are the
// aggregate of its steps' (pilotage.MaxRisk), the first declared of
// those, and each level "corresponds to exactly one risk_hints triple".
// A later level with the same hints as an earlier one is then never any
// plan's max_risk: a plan calling only its entries names the earlier
// level, so a Host gating on the max_risk string sees "write" for a
// step its author called "destroy" and left without the destructive
// flag. It is a warning, not an error: every plan still names a level
// consistent with its hints, which is all §5.3 requires.
var riskLevelsDistinct = &lint.Rule{
	ID:       "risk-levels-distinct",
	Category: lint.CatRisk,
	Section:  "5.3",
	Severity: report.Warning,
	Summary:  "No two risk levels may have the same hints: a plan's `max_risk` names the first level with its hints, so a later one with the same hints is never any plan's `max_risk`.",
	Check: func(p *lint.Pass) {
		for _, l := range p.Languages {
			cs, ok := section(l, closedsets.SecRiskLevels)
			if !ok {
				continue
			}
			// At most 8 triples exist, so the first level of each is
			// kept in an array, whatever the number of levels.
			var first [8]string
			var seen [8]bool
			for _, lv := range cs.Parsed.Sets.RiskLevels {
				k := hintsIndex(lv.Hints)
				if !seen[k] {
					seen[k], first[k] = true, lv.Risk
					continue
				}
				if lv.Risk == first[k] {
					continue // a level listed twice is closed-sets-format's
				}
				p.ReportValue(cs.Guide, sectionLine(cs, closedsets.SecRiskLevels, lv.Risk), l.ID, closedsets.SecRiskLevels, lv.Risk,
					fmt.Sprintf("the risk level %s of %s has the same hints as %s, %s, so no plan names it as its max_risk: a plan with those hints names %s, the first level that has them (reading 9)",
						report.Quote(lv.Risk), langLabel(l), report.Quote(first[k]), lv.Hints.Text(), report.Quote(first[k])),
					distinctHint(lv.Risk, first[k], lv.Hints))
			}
		}
	},
}

// hintsIndex numbers a triple 0 to 7.
func hintsIndex(h pilotage.RiskHints) int {
	i := 0
	if h.ReadOnly {
		i |= 1
	}
	if h.Destructive {
		i |= 2
	}
	if h.OpenWorld {
		i |= 4
	}
	return i
}

// distinctHint is the fix for a level later that has the hints h of the
// level first: the flags that would make it riskier, if it means more, or
// dropping it, if it means the same.
func distinctHint(later, first string, h pilotage.RiskHints) string {
	var flags []string
	if !h.ReadOnly && !h.Destructive {
		flags = append(flags, "destructive")
	}
	if !h.OpenWorld {
		flags = append(flags, "openWorld")
	}
	if h.ReadOnly {
		flags = append(flags, "no readOnly")
	}
	what := "if it means what " + report.Quote(first) + " means, drop it and use " + report.Quote(first)
	if len(flags) == 0 {
		return "no level is riskier than these hints: " + what
	}
	return fmt.Sprintf("if %s means more than %s, set the flags that say so (%s: in PDL on its risk statement, in the guide in its row); %s",
		report.Quote(later), report.Quote(first), strings.Join(flags, ", "), what)
}

func init() { register(riskLevelsDistinct) }
