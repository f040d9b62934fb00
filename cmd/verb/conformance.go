package verb

import (
	"slices"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
	"github.com/pilotage-dev/pilotage/lint/rules"
	"github.com/pilotage-dev/pilotage/workbench/compile"
	"github.com/pilotage-dev/pilotage/workbench/pdllint"
)

// Conformance is what pilotage lint FILE.pdl reports of the definition
// name, compiled without errors into res, whose lint input is li
// (pdllint.Prepare): res's own findings and those of every lint rule, at
// most max of one rule listed, brought under pilotage.yaml by apply (the
// function lint's reports go through: severities, disabled rules,
// suppressions), or as the rules raised them when apply is nil, and
// compared with baseline (ReadBaseline) when it is not nil. Build and
// serve judge a definition by it without compiling it again.
func Conformance(name string, li *lint.Input, res *compile.Result, max int, apply func(*report.Report), baseline *lint.Input) (*report.Report, error) {
	c, err := pdllint.NewChecker(rules.All(), lint.Config{MaxPerRule: max, Baseline: baseline})
	if err != nil {
		return nil, err
	}
	rep := c.Compiled(name, li, res, nil)
	if apply != nil {
		apply(rep)
	}
	return rep, nil
}

// ConformanceHead is the report of no definition that the Conformance
// reports of several definitions, and the PDL errors of those that do not
// compile, join (report.AddReport) into the one report pilotage lint
// FILE.pdl... would write: tool, the rules of lint and PDL, what they
// count, and baseline's text, which related locations quote.
func ConformanceHead(tool string, baseline *lint.Input) (*report.Report, error) {
	c, err := pdllint.NewChecker(rules.All(), lint.Config{Baseline: baseline})
	if err != nil {
		return nil, err
	}
	head := c.Head()
	head.Tool, head.Rules = tool, c.PDLRules()
	return head, nil
}

// Verdict says what the errors of rep, a Conformance report with
// errors, make of what, the file or Languages judged: that it "does not
// conform to Part II" when one cites a section of Part II, else that
// "lint finds errors in" it. Errors only of pilotage's own conventions
// (a suppression comment without a reason) break no requirement of the
// spec, and saying they do would send the author to it for what is
// pilotage's rule.
func Verdict(rep *report.Report, what string) string {
	partII := func(f report.Finding) bool {
		return f.Severity == report.Error && !f.Suppressed() && slices.ContainsFunc(f.AllSections(), report.PartII)
	}
	if slices.ContainsFunc(rep.Findings, partII) {
		return what + " does not conform to Part II"
	}
	return "lint finds errors in " + what
}
