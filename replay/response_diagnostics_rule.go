package replay

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleResponseDiagnostics is the ID of the rule the checks cite as it.
const RuleResponseDiagnostics = "response-diagnostics"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleResponseDiagnostics, Category: CatOutcomes, Section: "6.5.2", Severity: report.Error,
	Summary: "A validation_error response attaches its diagnostics, at least one an error; each diagnostic has code, severity, message and path, with a code from the Language's closed set."}})
