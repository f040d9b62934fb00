package conform

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleCarrierErrorChannel is the ID of the rule the checks cite as it.
const RuleCarrierErrorChannel = "carrier-error-channel"

var _ = registry.Register(&report.RuleInfo{ID: RuleCarrierErrorChannel, Category: "channels", Section: "8", Severity: report.Error,
	Summary: "An unknown tool or arguments that are not an object are JSON-RPC errors, not tool results."})
