package replay

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleEntryOnce is the ID of the rule the checks cite as it. They share the
// walk over the trace with other rules, so they live in check.go (place).
const RuleEntryOnce = "entry-once"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleEntryOnce, Category: CatIdentity, Section: "5.8.2", Severity: report.Error,
	Summary: "Every executed step appears exactly once."}, UsesPlan: true})
