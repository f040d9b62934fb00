package conform

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleOperationAnswers is the ID of the rule the checks cite as it. Its
// checks are in conform.go (expect) and wherever an operation is asked
// without expect: binding.go (pages), carrier_error_channel_rule.go,
// program.go (program) and refusals.go (requestErrorOf).
const RuleOperationAnswers = "operation-answers"

var _ = registry.Register(&report.RuleInfo{ID: RuleOperationAnswers, Category: "operations", Section: "6", Severity: report.Error,
	Summary: "discover, learn, lookup, validate, execute and trace answer a well-formed request, within the timeout."})
