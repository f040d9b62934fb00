package conform

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleProgramValid is the ID of the rule the checks cite as it. Its checks
// are in program.go (program), before the loop it gates.
const RuleProgramValid = "program-valid"

var _ = registry.Register(&report.RuleInfo{ID: RuleProgramValid, Category: "operations", Section: "6.4", Severity: report.Error,
	Summary: "The --program given validates, so it can be planned and executed; otherwise the loop checks cannot run."})
