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
				// In a build from source, the earlier level is shown
				// where it is declared too; in a snapshot both rows are
				// in the body the finding is at.
				var related []report.Location
				pdl := p.In.LocateValue != nil
				if pdl {
					if file, line, col, ok := p.In.LocateValue(l.ID, closedsets.SecRiskLevels, first[k]); ok {
						related = append(related, report.Location{File: file, Line: line, Column: col, Note: "the level " + report.Quote(first[k]) + ", declared first with these hints"})
					}
				}
				p.ReportValue(cs.Guide, sectionLine(cs, closedsets.SecRiskLevels, lv.Risk), l.ID, closedsets.SecRiskLevels, lv.Risk,
					fmt.Sprintf("the risk level %s of %s has the same hints as %s, %s, so no plan names it as its max_risk: a plan with those hints names %s, the first level that has them (reading 9)",
						report.Quote(lv.Risk), langLabel(l), report.Quote(first[k]), lv.Hints.Text(), report.Quote(first[k])),
					distinctHint(lv.Risk, first[k], lv.Hints, pdl), related...)
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
// level first: the flags that would make it riskier, if it means more, on
// its risk statement when pdl (a build from source) or in its row of the
// guide, or dropping it, if it means the same.
func distinctHint(later, first string, h pilotage.RiskHints, pdl bool) string {
	var flags, cols []string
	if !h.ReadOnly && !h.Destructive {
		flags, cols = append(flags, "destructive"), append(cols, "destructive true")
	}
	if !h.OpenWorld {
		flags, cols = append(flags, "openWorld"), append(cols, "openWorld true")
	}
	if h.ReadOnly {
		flags, cols = append(flags, "no readOnly"), append(cols, "readOnly false")
	}
	same := "if it means what " + report.Quote(first) + " means, drop it and use " + report.Quote(first)
	if len(flags) == 0 {
		return fmt.Sprintf("no hints are riskier than these, so %s can say no more than %s: drop it and use %s", report.Quote(later), report.Quote(first), report.Quote(first))
	}
	how := fmt.Sprintf("set in its row the columns that say so (%s)", strings.Join(cols, " or "))
	if pdl {
		how = fmt.Sprintf("give its risk statement the flags that say so (%s), such as: risk %s %s \"…\"", strings.Join(flags, " or "), later, riskierFlags(h, flags[0]))
	}
	return fmt.Sprintf("if %s means more than %s, %s; %s", report.Quote(later), report.Quote(first), how, same)
}

// riskierFlags writes the flags of a risk statement with hints h and the
// change named by flag, as distinctHint offers it.
func riskierFlags(h pilotage.RiskHints, flag string) string {
	switch flag {
	case "destructive":
		h.Destructive = true
	case "openWorld":
		h.OpenWorld = true
	default:
		h.ReadOnly = false
	}
	return strings.Join(h.Flags(), " ")
}

func init() { register(riskLevelsDistinct) }
