package replay

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleDeepUndecided is the ID of the rule deep replay (deepwalk.go, deepsub.go) cites: what could not be re-decided (a summary trace's missing outputs, the Run's input, an opaque promoted body).
const RuleDeepUndecided = "deep-undecided"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleDeepUndecided, Category: CatDeep, Section: "5.8.1", Severity: report.Info,
	Summary: "With --deep, what deep replay could not re-decide is said, with why: nothing passes silently."}})
