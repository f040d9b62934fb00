package conform

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleValidateUnknownName is the ID of the rule the checks cite as it.
const RuleValidateUnknownName = "validate-unknown-name"

var _ = registry.Register(&report.RuleInfo{ID: RuleValidateUnknownName, Category: "operations", Section: "5.5", Severity: report.Error,
	Summary: "With --program: the program with one catalog name replaced by one that cannot exist validates as invalid, with an unknown_name diagnostic whose path locates the name."})
