package pilotage_test

import (
	"encoding/json"
	"reflect"
	"testing"

	pilotage "github.com/pilotage-dev/pilotage"
)

// Hints written as the three letters R (readOnly), D (destructive),
// O (openWorld); a dash for false. "R--" is read-only, "-DO" destructive
// and open-world.
func hints(s string) pilotage.RiskHints {
	return pilotage.RiskHints{ReadOnly: s[0] == 'R', Destructive: s[1] == 'D', OpenWorld: s[2] == 'O'}
}

// §5.3: readOnly = AND, destructive = OR, openWorld = OR; over zero steps
// {readOnly: true, destructive: false, openWorld: false} (data-model.md).
func TestAggregate(t *testing.T) {
	tests := []struct {
		name string
		in   []string
		want string
	}{
		{"zero steps", nil, "R--"},
		{"one read-only step", []string{"R--"}, "R--"},
		{"one write step", []string{"---"}, "---"},
		{"one destructive open-world step", []string{"-DO"}, "-DO"},
		{"readOnly is an AND", []string{"R--", "R--", "---"}, "---"},
		{"destructive is an OR", []string{"R--", "-D-", "R--"}, "-D-"},
		{"openWorld is an OR", []string{"R-O", "R--"}, "R-O"},
		{"all three at once", []string{"R-O", "-D-", "R--"}, "-DO"},
		{"many safe steps stay safe", []string{"R--", "R--", "R--", "R--"}, "R--"},
	}
	for _, tt := range tests {
		var in []pilotage.RiskHints
		for _, s := range tt.in {
			in = append(in, hints(s))
		}
		if got := pilotage.Aggregate(in...); got != hints(tt.want) {
			t.Errorf("%s: Aggregate(%v) = %+v, want %+v", tt.name, tt.in, got, hints(tt.want))
		}
	}
	if pilotage.Aggregate() != pilotage.NoRisk {
		t.Error("Aggregate() must equal NoRisk")
	}
}

// Aggregation is order-independent and idempotent, so a plan's
// max_risk_hints does not depend on how its steps are listed.
func TestAggregateAlgebra(t *testing.T) {
	var all []pilotage.RiskHints
	for i := 0; i < 8; i++ {
		all = append(all, pilotage.RiskHints{ReadOnly: i&1 != 0, Destructive: i&2 != 0, OpenWorld: i&4 != 0})
	}
	for _, a := range all {
		if a.Max(a) != a {
			t.Errorf("Max is not idempotent on %+v", a)
		}
		for _, b := range all {
			if a.Max(b) != b.Max(a) {
				t.Errorf("Max(%+v, %+v) is not commutative", a, b)
			}
			// The aggregate covers each of its parts (honest risk, §5.4).
			if !a.Max(b).Covers(a) || !a.Max(b).Covers(b) {
				t.Errorf("Max(%+v, %+v) does not cover its parts", a, b)
			}
		}
	}
}

func TestConsistent(t *testing.T) {
	for _, tt := range []struct {
		h    string
		want bool
	}{{"R--", true}, {"RD-", false}, {"RDO", false}, {"-D-", true}, {"---", true}, {"R-O", true}} {
		if got := hints(tt.h).Consistent(); got != tt.want {
			t.Errorf("Consistent(%s) = %v, want %v (readOnly with destructive is inconsistent)", tt.h, got, tt.want)
		}
	}
}

func TestRiskHintsWireNames(t *testing.T) {
	b, err := json.Marshal(hints("RDO"))
	if err != nil || string(b) != `{"readOnly":true,"destructive":true,"openWorld":true}` {
		t.Errorf("Marshal = %s, %v", b, err)
	}
}

// Reading 9: h covers o when h is at least as risky as o on every hint.
func TestCovers(t *testing.T) {
	tests := []struct {
		h, o string
		want bool
	}{
		{"R--", "R--", true},
		{"---", "R--", true},  // readOnly false is riskier than true
		{"R--", "---", false}, // a read-only level cannot name a write
		{"-D-", "---", true},
		{"---", "-D-", false},
		{"--O", "R-O", true},
		{"R-O", "--O", false},
		{"-DO", "R--", true},
		{"-DO", "-D-", true},
		{"-D-", "--O", false}, // incomparable: each misses a risk of the other
		{"--O", "-D-", false},
	}
	for _, tt := range tests {
		if got := hints(tt.h).Covers(hints(tt.o)); got != tt.want {
			t.Errorf("%s.Covers(%s) = %v, want %v", tt.h, tt.o, got, tt.want)
		}
	}
}

var levelsSWD = []pilotage.RiskLevel{
	{Name: "safe", Hints: hints("R--")},
	{Name: "write", Hints: hints("---")},
	{Name: "dangerous", Hints: hints("-DO")},
}

// levelsIssue13 are the levels of issue 13, item 2.
var levelsIssue13 = []pilotage.RiskLevel{
	{Name: "safe", Hints: hints("R--")},
	{Name: "ronet", Hints: hints("R-O")},
	{Name: "write", Hints: hints("---")},
	{Name: "everything", Hints: hints("-DO")},
}

// Reading 9 as docs/readings.md amends it: max_risk names the level whose
// hints are the aggregate, the least risky of those covering it; a level
// that covers it with other hints is inconsistent with them (§5.3), so no
// level is named. levelsIssue13 planned write and ronet steps as
// everything, destructive where the hints were not (issue 13, item 2).
func TestMaxRisk(t *testing.T) {
	tests := []struct {
		name   string
		levels []pilotage.RiskLevel
		agg    string
		want   string
		ok     bool
	}{
		{"exact match", levelsSWD, "R--", "safe", true},
		{"write", levelsSWD, "---", "write", true},
		{"dangerous covers destructive but is also open-world", levelsSWD, "-D-", "", false},
		{"dangerous covers an open-world read but is neither", levelsSWD, "R-O", "", false},
		{"write and ronet are not everything", levelsIssue13, "--O", "", false},
		{"the one with exactly the hints among covering levels", []pilotage.RiskLevel{
			{Name: "all", Hints: hints("-DO")}, {Name: "open", Hints: hints("R-O")}, {Name: "read", Hints: hints("R--")},
		}, "R-O", "open", true},
		{"ties go to the first declared", []pilotage.RiskLevel{
			{Name: "destroy", Hints: hints("-D-")}, {Name: "write", Hints: hints("---")}, {Name: "change", Hints: hints("---")},
		}, "---", "write", true},
		{"nothing covers", []pilotage.RiskLevel{{Name: "safe", Hints: hints("R--")}}, "---", "", false},
		{"no levels", nil, "R--", "", false},
	}
	for _, tt := range tests {
		got, ok := pilotage.MaxRisk(tt.levels, hints(tt.agg))
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s: MaxRisk(%s) = %q, %v; want %q, %v", tt.name, tt.agg, got, ok, tt.want, tt.ok)
		}
	}
}

// §5.3 with §5.6 (reading 9 as docs/readings.md amends it): a Language
// whose levels cannot cover an aggregate of its own levels is refused;
// RiskGaps finds those aggregates and, for the message, the fewest levels
// that produce each.
func TestRiskGaps(t *testing.T) {
	type gap struct {
		hints  string
		levels []string
	}
	tests := []struct {
		name   string
		levels []pilotage.RiskLevel
		want   []gap
	}{
		{"safe/write/dangerous is closed", levelsSWD, nil},
		{"no levels", nil, nil},
		{"one read-only level", []pilotage.RiskLevel{{Name: "x", Hints: hints("R--")}}, nil},
		// A plan without calls is read-only (§5.3 over zero steps).
		{"no read-only level for a plan without calls", []pilotage.RiskLevel{{Name: "x", Hints: hints("--O")}}, []gap{{"R--", nil}}},
		// Covered by everything, but everything is destructive and the
		// aggregate is not (issue 13, item 2).
		{"an aggregate covered only by a riskier level", levelsIssue13, []gap{{"--O", []string{"ronet", "write"}}}},
		{"destructive and open-world without both", []pilotage.RiskLevel{
			{Name: "destroy", Hints: hints("-D-")}, {Name: "open", Hints: hints("R-O")},
		}, []gap{{"R--", nil}, {"-DO", []string{"destroy", "open"}}}},
		{"a read-only level is no producer", []pilotage.RiskLevel{
			{Name: "safe", Hints: hints("R--")}, {Name: "del", Hints: hints("-D-")}, {Name: "net", Hints: hints("--O")},
		}, []gap{{"-DO", []string{"del", "net"}}}},
		{"three levels whose pairwise aggregates are missing", []pilotage.RiskLevel{
			{Name: "w", Hints: hints("---")}, {Name: "d", Hints: hints("-D-")}, {Name: "o", Hints: hints("R-O")},
		}, []gap{{"R--", nil}, {"--O", []string{"w", "o"}}, {"-DO", []string{"d", "o"}}}},
		{"aggregate of three needed", []pilotage.RiskLevel{
			{Name: "r", Hints: hints("R--")}, {Name: "d", Hints: hints("-D-")}, {Name: "o", Hints: hints("--O")},
			{Name: "do", Hints: hints("-DO")},
		}, nil},
		// Destructive levels are never read-only, so two levels always suffice;
		// of several pairs, the earliest declared are named.
		{"a gap several pairs produce", []pilotage.RiskLevel{
			{Name: "w", Hints: hints("---")}, {Name: "ro", Hints: hints("R-O")}, {Name: "d", Hints: hints("-D-")},
			{Name: "wo", Hints: hints("--O")}, {Name: "dw", Hints: hints("-D-")},
		}, []gap{{"R--", nil}, {"-DO", []string{"ro", "d"}}}},
	}
	// A Language that plans nothing (no plan, no deploy) has no plan
	// without calls to name a level for.
	if got := pilotage.RiskGaps([]pilotage.RiskLevel{{Name: "x", Hints: hints("--O")}}, false); got != nil {
		t.Errorf("without plans: RiskGaps = %+v, want none", got)
	}
	for _, tt := range tests {
		got := pilotage.RiskGaps(tt.levels, true)
		var want []pilotage.RiskGap
		for _, g := range tt.want {
			want = append(want, pilotage.RiskGap{Hints: hints(g.hints), Levels: g.levels})
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: RiskGaps = %+v, want %+v", tt.name, got, want)
		}
		for _, g := range got {
			// Every reported gap really is uncovered, and really is the
			// aggregate of the levels named.
			if _, ok := pilotage.MaxRisk(tt.levels, g.Hints); ok {
				t.Errorf("%s: %+v reported uncovered but MaxRisk names a level", tt.name, g.Hints)
			}
			var hs []pilotage.RiskHints
			for _, name := range g.Levels {
				for _, l := range tt.levels {
					if l.Name == name {
						hs = append(hs, l.Hints)
					}
				}
			}
			if agg := pilotage.Aggregate(hs...); agg != g.Hints {
				t.Errorf("%s: levels %v aggregate to %+v, not the gap %+v", tt.name, g.Levels, agg, g.Hints)
			}
		}
	}
}
