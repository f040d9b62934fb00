package conform

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleRequestErrorChannel is the ID of the rule the checks cite as it. Its
// checks are in conform.go (call) and loop.go (notFound, envelope), for
// every request error.
const RuleRequestErrorChannel = "request-error-channel"

var _ = registry.Register(&report.RuleInfo{ID: RuleRequestErrorChannel, Category: "channels", Section: "8", Severity: report.Error,
	Summary: `A request error answers isError true with {"error": {"kind", "message"}} of a closed kind; unknown guides, entries and runs are not_found.`})
