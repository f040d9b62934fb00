package conform

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleResultChannel is the ID of the rule the checks cite as it. Its checks
// are in conform.go (call), for every processed result.
const RuleResultChannel = "result-channel"

var _ = registry.Register(&report.RuleInfo{ID: RuleResultChannel, Category: "channels", Section: "8", Severity: report.Error,
	Summary: "A processed operation answers isError false, the response as structuredContent and the same JSON as one text block."})
