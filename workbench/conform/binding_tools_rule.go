package conform

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleBindingTools is the ID of the rule the checks cite as it.
const RuleBindingTools = "binding-tools"

var _ = registry.Register(&report.RuleInfo{ID: RuleBindingTools, Category: "binding", Section: bindingDoc, Severity: report.Error,
	Summary: "Every tool the manifest names is listed by tools/list, with an object inputSchema and outputSchema."})
