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
// levels, for max_risk (reading 9). It is an error when no level has
// exactly the aggregate's hints: any level named then has hints other
// than max_risk_hints, which §5.3 forbids ("consistent with risk_hints"). The
// compiler refuses such Languages (pdl-risk), so the error means one was
// built some other way.
func Plan(prog *Program, armLabels []string, levels []pilotage.RiskLevel) (*pilotage.Plan, error) {
	return plan(prog, armLabels, levels, false)
}

// PlanLast is Plan for a caller done with prog: it lets go of each of
// the program's steps, and the steps inside it, once they are planned,
// and leaves prog without steps. The plan of 20,000 steps (2.9 MB) and
// the step model it was made of (3.6 MB) were held whole at once, the
// peak of validate and plan (docs/performance.md, "A large valid
// program").
func PlanLast(prog *Program, armLabels []string, levels []pilotage.RiskLevel) (*pilotage.Plan, error) {
	return plan(prog, armLabels, levels, true)
}

func plan(prog *Program, armLabels []string, levels []pilotage.RiskLevel, last bool) (*pilotage.Plan, error) {
	// Sized to the steps: grown by appending, the plan of 20,000 steps
	// allocated 11.7 MB for its 3 MB. Each step's calls are one element
	// of calls, not a slice of its own (16 bytes a step more).
	n := 0
	Walk(prog.Steps, func(*Step) { n++ })
	plan := &pilotage.Plan{Steps: make([]pilotage.PlanStep, 0, n), MaxRiskHints: pilotage.NoRisk}
	calls := make([]string, 0, n)
	add := func(s *Step) {
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
			calls = append(calls, s.Target)
			ps.Calls = calls[len(calls)-1 : len(calls) : len(calls)]
			if s.Entry != nil {
				h := s.Entry.RiskHints
				ps.Risk, ps.RiskHints = s.Entry.Risk, &h
				plan.MaxRiskHints = plan.MaxRiskHints.Max(h) // pilotage.Aggregate
			}
		}
		plan.Steps = append(plan.Steps, ps)
	}
	for i := range prog.Steps {
		Walk(prog.Steps[i:i+1], add)
		if last {
			prog.Steps[i] = nil
		}
	}
	if last {
		prog.Steps = nil
	}
	maxRisk, ok := pilotage.MaxRisk(levels, plan.MaxRiskHints)
	if !ok {
		return nil, fmt.Errorf("no risk level has exactly the hints %s of max_risk_hints (a level covering them says more risk than they do), so the plan has no max_risk consistent with them (§5.3); the Language's levels must include every aggregate of themselves and a read-only level", plan.MaxRiskHints.Text())
	}
	plan.MaxRisk = maxRisk
	plan.Summary = summary(len(plan.Steps), calls, plan.MaxRisk)
	return plan, nil
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
