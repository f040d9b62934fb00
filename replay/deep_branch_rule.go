package replay

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleDeepBranch is the ID of the rule deep replay (deepwalk.go) cites: a branch whose recorded arm is not the one its condition gives.
const RuleDeepBranch = "deep-branch"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleDeepBranch, Category: CatDeep, Section: "5.8", Severity: report.Error,
	Summary: "With --deep, a branch took the arm its condition gives over the values the trace records."}})
