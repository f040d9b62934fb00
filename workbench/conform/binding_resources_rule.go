package conform

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleBindingResources is the ID of the rule the checks cite as it.
const RuleBindingResources = "binding-resources"

var _ = registry.Register(&report.RuleInfo{ID: RuleBindingResources, Category: "binding", Section: bindingDoc, Severity: report.Error,
	Summary: "pilotage://manifest holds the manifest discover returns; when a Language's guides are published as resources, every guide of the learn index has one holding its body, and none names another guide."})
