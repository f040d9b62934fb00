package pilotage

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

// riskiness counts the risky hints, to order levels from least risky.
func (h RiskHints) riskiness() int {
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

// RiskLevel is one engine-defined risk level with its hints.
type RiskLevel struct {
	Name  string
	Hints RiskHints
}

// MaxRisk names the least risky declared level whose hints cover agg
// (reading 9). Ties are broken by declaration order. ok is false when no
// declared level covers agg.
func MaxRisk(levels []RiskLevel, agg RiskHints) (name string, ok bool) {
	best := -1
	for i, l := range levels {
		if !l.Hints.Covers(agg) {
			continue
		}
		if best < 0 || l.Hints.riskiness() < levels[best].Hints.riskiness() {
			best = i
		}
	}
	if best < 0 {
		return "", false
	}
	return levels[best].Name, true
}

// UncoveredAggregates returns every aggregate of the given levels' hints
// that no level covers; a Language with such gaps cannot name a plan's
// max_risk for some programs (reading 9).
func UncoveredAggregates(levels []RiskLevel) []RiskHints {
	var out []RiskHints
	// Aggregates of any non-empty subset; at most 8 distinct triples exist,
	// so closing the set under Max is cheap.
	seen := map[RiskHints]bool{}
	var all []RiskHints
	for _, l := range levels {
		if !seen[l.Hints] {
			seen[l.Hints] = true
			all = append(all, l.Hints)
		}
	}
	for changed := true; changed; {
		changed = false
		for i := 0; i < len(all); i++ {
			for j := i + 1; j < len(all); j++ {
				m := all[i].Max(all[j])
				if !seen[m] {
					seen[m] = true
					all = append(all, m)
					changed = true
				}
			}
		}
	}
	for _, h := range all {
		if _, ok := MaxRisk(levels, h); !ok {
			out = append(out, h)
		}
	}
	return out
}
