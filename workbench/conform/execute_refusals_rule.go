package conform

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleExecuteRefusals is the ID of the rule the checks cite as it.
const RuleExecuteRefusals = "execute-refusals"

var _ = registry.Register(&report.RuleInfo{ID: RuleExecuteRefusals, Category: "operations", Section: "6.5.2", Severity: report.Error,
	Summary: "With --execute: execute refuses before running anything: a drifted expected_catalog_version is a catalog_drift outcome, an invalid inline program a validation_error outcome with diagnostics (neither with trace steps or output), an unknown program_ref, an unknown trace_level and store: true under retention none are request errors, and a request both malformed and drifted gets the request error (the first failing check wins)."})
