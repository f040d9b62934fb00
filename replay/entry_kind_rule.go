package replay

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleEntryKind is the ID of the rule the checks cite as it. They share the
// walk over the trace with other rules, so they live in check.go (kind).
const RuleEntryKind = "entry-kind"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleEntryKind, Category: CatControlFlow, Section: "5.8", Severity: report.Error,
	Summary: "A trace entry's kind is step, branch or loop and mirrors its plan step."}, UsesPlan: true})
