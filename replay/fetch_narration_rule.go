package replay

import (
	"fmt"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// RuleFetchNarration is the ID of the rule the checks cite as it.
const RuleFetchNarration = "fetch-narration"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleFetchNarration, Category: CatOutcomes, Section: "6.6", Severity: report.Error,
	Summary: "Narration comes only from the fetch door of a Language declaring trace_fetch.narrate, and never for a refused Run."}})

// narration checks a response that carries narration, which only the
// fetch door returns (§6.6): for a Language declaring trace_fetch.narrate,
// and never for a refused Run, which is not retrievable there.
func (c *checker) narration(at site, status string) {
	if pilotage.IsRefusal(status) {
		c.add(finding{rule: RuleFetchNarration, at: at,
			msg:  fmt.Sprintf("a response with narration, which only the fetch door returns, for a Run refused with %s", status),
			hint: "refused Runs are never retained and are not retrievable through the fetch door (§6.5, §6.6)"})
	}
	if c.lang != nil && !c.lang.Narrate {
		c.add(finding{rule: RuleFetchNarration, at: at,
			msg:  fmt.Sprintf("the response carries narration, but Language %q does not declare trace_fetch.narrate", report.Clip(c.lang.ID)),
			hint: "by default the fetch door returns the recorded facts and no interpretation; narration needs narrate: true (§6.6)"})
	}
}
