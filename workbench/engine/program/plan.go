package program

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	pilotage "github.com/pilotage-dev/pilotage"
)

// Plan derives the plan of a checked program (§5.6): branches and loops
// are steps of their own without calls; every arm's steps carry `arm`,
// every loop-body step (not inside an arm) carries `loop`; a call to a
// promoted program is one step with the entry's declared risk. armLabels
// are the Grammar's arm names (reading 3); levels are the Language's risk
// levels, for max_risk (reading 9).
func Plan(prog *Program, armLabels []string, levels []pilotage.RiskLevel) *pilotage.Plan {
	plan := &pilotage.Plan{Steps: []pilotage.PlanStep{}}
	var hints []pilotage.RiskHints
	var calls []string
	Walk(prog.Steps, func(s *Step) {
		ps := pilotage.PlanStep{ID: s.ID}
		if e := s.Enclosing; e != nil {
			if e.Kind == Branch {
				ps.Arm = &pilotage.ArmRef{Branch: e.ID, Label: armLabels[s.Arm]}
			} else {
				ps.Loop = e.ID
			}
		}
		switch s.Kind {
		case Branch:
			ps.Kind = pilotage.KindBranch
			ps.Arms = append([]string(nil), armLabels...)
		case Loop:
			ps.Kind = pilotage.KindLoop
		default:
			ps.Kind = pilotage.KindStep
			ps.Calls = []string{s.Target}
			if s.Entry != nil {
				h := s.Entry.RiskHints
				ps.Risk, ps.RiskHints = s.Entry.Risk, &h
				hints = append(hints, h)
			}
			calls = append(calls, s.Target)
		}
		plan.Steps = append(plan.Steps, ps)
	})
	plan.MaxRiskHints = pilotage.Aggregate(hints...)
	plan.MaxRisk = MaxRisk(levels, plan.MaxRiskHints)
	plan.Summary = summary(len(plan.Steps), calls, plan.MaxRisk)
	return plan
}

// MaxRisk names the least risky level covering agg; when no declared level
// covers it, the riskiest level, so the plan never understates risk more
// than the Language can say.
func MaxRisk(levels []pilotage.RiskLevel, agg pilotage.RiskHints) string {
	if name, ok := pilotage.MaxRisk(levels, agg); ok {
		return name
	}
	best, bestN := "", -1
	for _, l := range levels {
		n := 0
		for _, risky := range []bool{!l.Hints.ReadOnly, l.Hints.Destructive, l.Hints.OpenWorld} {
			if risky {
				n++
			}
		}
		if n > bestN {
			best, bestN = l.Name, n
		}
	}
	return best
}

func summary(n int, calls []string, risk string) string {
	uniq := map[string]bool{}
	for _, c := range calls {
		uniq[c] = true
	}
	names := slices.Sorted(maps.Keys(uniq))
	s := fmt.Sprintf("%d steps", n)
	if n == 1 {
		s = "1 step"
	}
	if len(names) > 0 {
		s += "; may call " + strings.Join(names, ", ")
	} else {
		s += "; calls nothing"
	}
	if risk != "" {
		s += "; max risk " + risk
	}
	return s
}
