package conform

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleBindingExtension is the ID of the rule the checks cite as it.
const RuleBindingExtension = "binding-extension"

var _ = registry.Register(&report.RuleInfo{ID: RuleBindingExtension, Category: "binding", Section: bindingDoc, Severity: report.Error,
	Summary: `initialize declares capabilities.extensions["dev.pilotage/pilotage"] with a version and the discover tool.`})
