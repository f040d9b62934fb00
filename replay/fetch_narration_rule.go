package replay

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleFetchNarration is the ID of the rule the checks cite as it.
const RuleFetchNarration = "fetch-narration"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleFetchNarration, Category: CatOutcomes, Section: "6.6", Severity: report.Error,
	Summary: "Narration comes only from the fetch door of a Language declaring trace_fetch.narrate, and never for a refused Run."}})
