package basetest_test

import (
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/ruleset"

	"github.com/pilotage-dev/pilotage/internal/base/report"
)

type rule report.RuleInfo

func (r *rule) Info() report.RuleInfo { return report.RuleInfo(*r) }

var layout = ruleset.Layout{Code: "replay/%s_rule.go", Doc: "docs/replay.md#%s", Fixture: "replay/testdata/rules/%s.txtar"}

// A registry lists its rules sorted by ID whatever order their files
// registered them in, finds each by ID, and writes a table row per rule
// whose summary's | cannot end the cell.
func TestRulesetRegistry(t *testing.T) {
	g := ruleset.New[*rule](layout)
	b := g.Register(&rule{ID: "b-rule", Category: "x", Section: "5.8", Severity: report.Warning, Summary: "B | b."})
	g.Register(&rule{ID: "a-rule", Category: "y", Section: "binding.md", Severity: report.Error, Summary: "A."})
	if all := g.All(); len(all) != 2 || all[0].ID != "a-rule" || all[1] != b {
		t.Errorf("All = %v", all)
	}
	if r, ok := g.Lookup("b-rule"); !ok || r != b {
		t.Errorf("Lookup(b-rule) = %v, %v", r, ok)
	}
	if _, ok := g.Lookup("c-rule"); ok {
		t.Error("Lookup found a rule never registered")
	}
	want := "| rule | category | section | severity | summary |\n|---|---|---|---|---|\n" +
		"| [a-rule](#a-rule) | y | binding.md | error | A. |\n" +
		"| [b-rule](#b-rule) | x | §5.8 | warning | B \\| b. |\n"
	if got := ruleset.Table(g.Infos(), func(id string) string { return "#" + id }); got != want {
		t.Errorf("Table:\n%s\nwant:\n%s", got, want)
	}
}

// The paths of a rule come from its ID alone, with _ for - in Go files.
// Go reads a file name's last _word as a build constraint (a file
// unselected_arm.go builds only for GOARCH=arm), so replay's and conform's
// rule files, which share a package with other code, end in _rule.go.
func TestRulesetLayout(t *testing.T) {
	if got := layout.CodeFile("unselected-arm"); got != "replay/unselected_arm_rule.go" {
		t.Errorf("CodeFile = %s", got)
	}
	if got := layout.DocOf("unselected-arm"); got != "docs/replay.md#unselected-arm" {
		t.Errorf("DocOf = %s", got)
	}
	if got := layout.FixtureOf("unselected-arm"); got != "replay/testdata/rules/unselected-arm.txtar" {
		t.Errorf("FixtureOf = %s", got)
	}
}

// A rule registered twice, or without an ID, is a programming error
// found at start-up.
func TestRulesetRegisterRefuses(t *testing.T) {
	for _, tt := range []struct {
		name  string
		rules []*rule
	}{
		{"twice", []*rule{{ID: "a"}, {ID: "a"}}},
		{"no ID", []*rule{{}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			g := ruleset.New[*rule](layout)
			for _, r := range tt.rules {
				g.Register(r)
			}
		})
	}
}
