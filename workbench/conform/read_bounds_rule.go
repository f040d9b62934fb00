package conform

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleReadBounds is the ID of the rule the checks cite as it. Its checks are
// in binding.go (pages) and loop.go (run, learn, lookup), where each bound
// stops a read.
const RuleReadBounds = "read-bounds"

var _ = registry.Register(&report.RuleInfo{ID: RuleReadBounds, Category: "operations", Section: "6.3", Severity: report.Warning,
	Summary: "Conform read everything the server publishes within its bounds (--max-items, --max-pages, --max-languages); what lies beyond was not checked."})
