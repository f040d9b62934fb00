package verb

import (
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
// suppressions), or as the rules raised them when apply is nil. Build
// and serve judge a definition by it without compiling it again.
func Conformance(name string, li *lint.Input, res *compile.Result, max int, apply func(*report.Report)) (*report.Report, error) {
	c, err := pdllint.NewChecker(rules.All(), lint.Config{MaxPerRule: max})
	if err != nil {
		return nil, err
	}
	rep := c.Compiled(name, li, res, nil)
	if apply != nil {
		apply(rep)
	}
	return rep, nil
}
