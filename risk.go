package pilotage

import "fmt"

// RiskHints is the boolean triple carried with every risk (§5.3).
type RiskHints struct {
	ReadOnly    bool `json:"readOnly"`
	Destructive bool `json:"destructive"`
	OpenWorld   bool `json:"openWorld"`
}

// NoRisk is the aggregate over zero steps (data-model.md §5.3).
var NoRisk = RiskHints{ReadOnly: true}

// Consistent reports whether the triple is coherent: readOnly together with
// destructive is always inconsistent (data-model.md §5.3).
func (h RiskHints) Consistent() bool { return !(h.ReadOnly && h.Destructive) }

// Text writes the triple as it is written in JSON, for messages.
func (h RiskHints) Text() string {
	return fmt.Sprintf(`{"readOnly": %t, "destructive": %t, "openWorld": %t}`, h.ReadOnly, h.Destructive, h.OpenWorld)
}

// Flags names the hints that are true, in the order readOnly,
// destructive, openWorld: the flags of a PDL risk statement with h.
func (h RiskHints) Flags() []string {
	var out []string
	for _, f := range []struct {
		on   bool
		name string
	}{{h.ReadOnly, "readOnly"}, {h.Destructive, "destructive"}, {h.OpenWorld, "openWorld"}} {
		if f.on {
			out = append(out, f.name)
		}
	}
	return out
}

// Aggregate computes the maximum risk of several steps from their hints
// (§5.3): readOnly is the AND, destructive and openWorld the OR.
func Aggregate(hints ...RiskHints) RiskHints {
	out := NoRisk
	for _, h := range hints {
		out = out.Max(h)
	}
	return out
}

// Max is the two-argument form of Aggregate.
func (h RiskHints) Max(o RiskHints) RiskHints {
	return RiskHints{
		ReadOnly:    h.ReadOnly && o.ReadOnly,
		Destructive: h.Destructive || o.Destructive,
		OpenWorld:   h.OpenWorld || o.OpenWorld,
	}
}

// Covers reports whether h is at least as restrictive as o on every hint
// (reading 9 of data-model.md): readOnly false is riskier than true,
// destructive and openWorld true are riskier than false.
func (h RiskHints) Covers(o RiskHints) bool {
	return (!h.ReadOnly || o.ReadOnly) &&
		(h.Destructive || !o.Destructive) &&
		(h.OpenWorld || !o.OpenWorld)
}

// Riskiness counts the risky hints (0 to 3), to order levels from least
// risky.
func (h RiskHints) Riskiness() int {
	n := 0
	if !h.ReadOnly {
		n++
	}
	if h.Destructive {
		n++
	}
	if h.OpenWorld {
		n++
	}
	return n
}

// PlansPrograms reports whether a Language with the effective
// capabilities caps and the execution_mode mode derives plans, a program
// that calls nothing included: with plan declared, or when it deploys,
// since a promoted entry takes its body's plan's max_risk (§5.4, §6.5.7).
func PlansPrograms(caps Capabilities, mode string) bool {
	return caps.Has(CapPlan) || caps.Has(CapExecute) && (mode == ModeDeploy || mode == ModeBoth)
}

// RiskLevel is one engine-defined risk level with its hints.
type RiskLevel struct {
	Name  string
	Hints RiskHints
}

// MaxRisk names the least risky declared level whose hints cover agg
// (reading 9), which must be agg itself: a level that covers agg with
// other hints says more risk than the hints do, so a Host gating on the
// level and one gating on the hints decide differently, and §5.3 asks
// that "The engine-defined risk value MUST be consistent with risk_hints"
// (reading 9 as docs/readings.md amends it). A level with exactly agg is
// the least risky covering one, so this is the first declared level whose
// hints are agg; a later level with the same hints is never named (lint's
// risk-levels-distinct warns of it). ok is false when no level has them.
func MaxRisk(levels []RiskLevel, agg RiskHints) (name string, ok bool) {
	for _, l := range levels {
		if l.Hints == agg {
			return l.Name, true
		}
	}
	return "", false
}

// RiskGap is an aggregate a plan of a Language can have that none of its
// levels has exactly.
type RiskGap struct {
	Hints RiskHints
	// Levels are levels whose aggregate Hints is, none of them redundant,
	// in declaration order: the levels a plan would have to combine. None
	// for NoRisk, the aggregate of a plan without calls.
	Levels []string
}

// RiskGaps returns every aggregate a plan can have (§5.3) that no level
// has exactly: each aggregate of the given levels' hints and, when
// plansWithoutCalls, NoRisk, the hints of a plan without calls. For each,
// a plan with those hints has no max_risk consistent with its
// max_risk_hints (§5.6; see MaxRisk), so such a Language is refused
// (reading 9 as docs/readings.md amends it). plansWithoutCalls is whether
// the Language plans a program that calls nothing: PlansPrograms. With no
// levels there is nothing to name and nothing reported here (the compiler
// refuses a Language with plan and no level). lint, the PDL compiler and
// the engine's plan all decide coverage here.
//
// The work is over levels, never over catalog entries, so a large catalog
// does not slow a build: at most 8 distinct triples exist, so closing them
// under Max takes at most 8×8 steps whatever the number of levels, and
// naming a gap's producers is quadratic only in the levels (a handful).
func RiskGaps(levels []RiskLevel, plansWithoutCalls bool) []RiskGap {
	if len(levels) == 0 {
		return nil
	}
	seen := map[RiskHints]bool{}
	var all []RiskHints
	if plansWithoutCalls {
		// NoRisk aggregates with any triple to that triple, so it adds
		// no aggregate but itself.
		seen[NoRisk] = true
		all = append(all, NoRisk)
	}
	for _, l := range levels {
		if !seen[l.Hints] {
			seen[l.Hints] = true
			all = append(all, l.Hints)
		}
	}
	// Appending while ranging by index closes the set under Max: every
	// new aggregate is itself combined with every earlier one.
	for i := 0; i < len(all); i++ {
		for j := 0; j < i; j++ {
			if m := all[i].Max(all[j]); !seen[m] {
				seen[m] = true
				all = append(all, m)
			}
		}
	}
	var out []RiskGap
	for _, h := range all {
		if _, ok := MaxRisk(levels, h); !ok {
			out = append(out, RiskGap{Hints: h, Levels: producers(levels, h)})
		}
	}
	return out
}

// producers names levels whose aggregate is agg, dropping, from the last
// declared back, every level the others make redundant; the levels agg
// covers aggregate to agg itself, since agg is an aggregate of some of
// them.
func producers(levels []RiskLevel, agg RiskHints) []string {
	var in []RiskLevel
	for _, l := range levels {
		if agg.Covers(l.Hints) {
			in = append(in, l)
		}
	}
	for i := len(in) - 1; i >= 0; i-- {
		rest := append(append([]RiskLevel(nil), in[:i]...), in[i+1:]...)
		if aggregateOf(rest) == agg {
			in = rest
		}
	}
	var names []string
	for _, l := range in {
		names = append(names, l.Name)
	}
	return names
}

// aggregateOf is Aggregate over the levels' hints.
func aggregateOf(levels []RiskLevel) RiskHints {
	out := NoRisk
	for _, l := range levels {
		out = out.Max(l.Hints)
	}
	return out
}
