package replay

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleSummaryTruncation is the ID of the rule the checks cite as it.
const RuleSummaryTruncation = "summary-truncation"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleSummaryTruncation, Category: CatClosedSets, Section: "5.8.1", Severity: report.Error,
	Summary: "Step outputs are truncated exactly as the closed-sets guide documents."}})
