package pdllint

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/base/suppress"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
	"github.com/pilotage-dev/pilotage/lint"
	"github.com/pilotage-dev/pilotage/lint/rules"
	"github.com/pilotage-dev/pilotage/workbench/pdl"
)

// TestSuppressRuleFixtures runs the fixture of each rule of suppressions
// (suppress.Layout): PDL files linted as pilotage lint lints them, their
// comments applied. Each NAME.want lists the rule's findings, one per
// line: LINE:COL SEVERITY RULE SECTION: MESSAGE. A passing fixture is
// clean under every rule once its comments have suppressed what they
// name.
func TestSuppressRuleFixtures(t *testing.T) {
	for _, r := range suppress.Rules() {
		t.Run(r.ID, func(t *testing.T) {
			path := filepath.Join("..", "..", suppress.Layout.FixtureOf(r.ID))
			golden.RuleFixtures(t, path, func(string) bool { return true }, func(a *golden.Archive, name string, all bool) string {
				src, _ := a.File(name + ".pdl")
				return lintSuppressed(t, name+".pdl", src, func(f report.Finding) bool { return all || f.Rule == r.ID })
			})
		})
	}
}

// lintSuppressed lints one PDL file, applies its suppression comments and
// renders the unsuppressed findings keep selects.
func lintSuppressed(t *testing.T, name string, src []byte, keep func(report.Finding) bool) string {
	t.Helper()
	rep, err := Run(rules.All(), []*lint.Input{{File: name, Src: src}}, lint.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var known []string
	for _, r := range Rules(rules.All()) {
		known = append(known, r.ID)
	}
	suppress.Apply(rep, pdl.Suppressions(name, src), nil, suppress.Options{Known: known})
	var b strings.Builder
	for _, f := range rep.Findings {
		if !f.Suppressed() && keep(f) {
			fmt.Fprintf(&b, "%d:%d %s %s %s: %s\n", f.Line, f.Column, f.Severity, f.Rule, report.Cite(f.Section), f.Message)
		}
	}
	return b.String()
}
