package replay

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleEntryOrder is the ID of the rule the checks cite as it. They share the
// walk over the trace with other rules, so they live in check.go (place).
const RuleEntryOrder = "entry-order"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleEntryOrder, Category: CatIdentity, Section: "5.8.2", Severity: report.Warning,
	Summary: "Entries of one sequence appear in the order their plan steps are listed."}, UsesPlan: true})
