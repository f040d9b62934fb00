package suppress

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/base/ruleset"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
	"github.com/pilotage-dev/pilotage/internal/testsupport/ruletest"
)

func TestParseComment(t *testing.T) {
	for _, c := range []struct {
		text    string
		ok      bool
		rules   string
		reason  string
		problem string
	}{
		{"# pilotage:ignore core-guide-size -- measured", true, "core-guide-size", "measured", ""},
		{"#pilotage:ignore a,b -- two rules, one reason -- with dashes", true, "a,b", "two rules, one reason -- with dashes", ""},
		{"# pilotage:ignore a , b --   spaced  ", true, "a,b", "spaced", ""},
		{"# pilotage:ignore core-guide-size", true, "core-guide-size", "", ""},
		{"# pilotage:ignore core-guide-size --", true, "core-guide-size", "", ""},
		{"# pilotage:ignore -- no rule", true, "", "no rule", "no rule named"},
		{"# pilotage:ignore", true, "", "", "no rule named"},
		{"# pilotage:ignore a,,b -- r", true, "a", "r", "an empty rule in the list"},
		{"# pilotage:ignore Core_Size -- r", true, "", "r", `"Core_Size" is not a rule ID`},
		{"# pilotage:ignored a -- r", false, "", "", ""},
		{"# see pilotage:ignore in docs", false, "", "", ""},
		{"# an ordinary comment", false, "", "", ""},
	} {
		got, ok := ParseComment(c.text)
		if ok != c.ok || strings.Join(got.Rules, ",") != c.rules || got.Reason != c.reason || got.Problem != c.problem {
			t.Errorf("ParseComment(%q) = %+v, %v; want rules %q reason %q problem %q ok %v", c.text, got, ok, c.rules, c.reason, c.problem, c.ok)
		}
	}
}

func directive(text string, line int) Directive {
	c, _ := ParseComment(text)
	at := report.Location{File: "a.pdl", Line: line, Column: 1}
	return Directive{Comment: c, At: at, Start: report.Location{File: "a.pdl", Line: line + 1, Column: 1},
		End: report.Location{File: "a.pdl", Line: line + 3, Column: 1}}
}

func TestApply(t *testing.T) {
	rep := &report.Report{Files: []string{"a.pdl"}}
	rep.Add(
		report.Finding{Rule: "x", File: "a.pdl", Line: 2, Column: 5, Severity: report.Error},  // covered by line 1's
		report.Finding{Rule: "x", File: "a.pdl", Line: 4, Column: 1, Severity: report.Error},  // past its end
		report.Finding{Rule: "y", File: "a.pdl", Line: 12, Column: 1, Severity: report.Error}, // under a directive without reason
		report.Finding{Rule: "x", File: "b.pdl", Line: 2, Column: 5, Severity: report.Error},  // another file
	)
	Apply(rep, []Directive{
		directive("# pilotage:ignore x,y -- fine here", 1),
		directive("# pilotage:ignore y", 10),
		directive("# pilotage:ignore core-guide-sise -- r", 20),
	}, nil, Options{Known: []string{"x", "y", "core-guide-size"}})
	var got []string
	for _, f := range rep.Findings {
		s := f.File + ":" + strconv.Itoa(f.Line) + " " + f.Rule
		if f.Suppressed() {
			s += " suppressed"
		}
		got = append(got, s)
	}
	want := []string{
		"a.pdl:1 unused-suppression", // y of line 1 suppressed nothing
		"a.pdl:2 x suppressed",
		"a.pdl:4 x",
		"a.pdl:10 suppression-reason",
		"a.pdl:12 y",
		"a.pdl:20 suppression-syntax",
		"b.pdl:2 x",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if s := rep.Summary; s.Suppressed != 1 || s.Errors != 5 || s.Warnings != 1 {
		t.Fatalf("summary %+v", s)
	}
	for _, f := range rep.Findings {
		if f.Rule == RuleSuppressionSyntax && !strings.Contains(f.Message, `unknown rule "core-guide-sise" (did you mean "core-guide-size"?)`) {
			t.Errorf("syntax finding %q does not name the rule and the nearest", f.Message)
		}
	}
}

// TestApplyDisabled: a rule of suppressions that --disable turned off
// raises nothing, whatever the others do; a reasonless directive still
// suppresses nothing; and a directive naming a disabled rule is not
// unused, since that rule did not run.
func TestApplyDisabled(t *testing.T) {
	dirs := func() []Directive {
		return []Directive{
			directive("# pilotage:ignore x -- covers nothing", 1),
			directive("# pilotage:ignore y", 10),
			directive("# pilotage:ignore z, -- r", 20),
			directive("# pilotage:ignore w -- w is off", 30),
		}
	}
	known := []string{"w", "x", "y"}
	for _, c := range []struct {
		off  []string
		want string
	}{
		{nil, "1 unused-suppression,10 suppression-reason,12 y,20 suppression-syntax"},
		{[]string{RuleUnusedSuppression}, "10 suppression-reason,12 y,20 suppression-syntax"},
		{[]string{RuleSuppressionReason}, "1 unused-suppression,12 y,20 suppression-syntax"},
		{[]string{RuleSuppressionSyntax, RuleUnusedSuppression}, "10 suppression-reason,12 y"},
	} {
		rep := &report.Report{Files: []string{"a.pdl"}}
		rep.Add(report.Finding{Rule: "y", File: "a.pdl", Line: 12, Column: 1, Severity: report.Error})
		off := map[string]bool{"w": true}
		for _, id := range c.off {
			off[id] = true
		}
		Apply(rep, dirs(), nil, Options{Known: known, Disabled: off})
		var got []string
		for _, f := range rep.Findings {
			got = append(got, strconv.Itoa(f.Line)+" "+f.Rule)
		}
		if strings.Join(got, ",") != c.want {
			t.Errorf("--disable %v: got %s, want %s", c.off, strings.Join(got, ","), c.want)
		}
	}
}

// TestRuleShape: every rule of suppressions is found from its ID in one
// step: its file here, its heading in docs/config.md, its fixture.
func TestRuleShape(t *testing.T) { ruletest.RuleShape(t, filepath.Join("..", "..", ".."), registry) }

// TestRulesTable keeps docs/config.md's table of these rules equal to the
// registry; go test -update rewrites it.
func TestRulesTable(t *testing.T) {
	golden.Generated(t, filepath.Join("..", "..", "..", "docs", "config.md"), "suppression rules",
		[]byte(ruleset.Table(registry.Infos(), func(id string) string { return "#" + id })))
}

// FuzzParseComment: any comment text parses without panic; a directive
// either names rules or says what is wrong.
func FuzzParseComment(f *testing.F) {
	for _, s := range []string{"# pilotage:ignore a,b -- r", "# pilotage:ignore", "#pilotage:ignore ,", "# pilotage:ignore a -- "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		c, ok := ParseComment(text)
		if ok && len(c.Rules) == 0 && c.Problem == "" {
			t.Fatalf("%q: a directive with no rule and no problem", text)
		}
		for _, id := range c.Rules {
			if !ruleID.MatchString(id) {
				t.Fatalf("%q: rule %q is not an ID", text, id)
			}
		}
	})
}
