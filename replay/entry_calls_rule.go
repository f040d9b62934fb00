package replay

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// RuleEntryCalls is the ID of the rule the checks cite as it.
const RuleEntryCalls = "entry-calls"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleEntryCalls, Category: CatCorrespondence, Section: "5.8.4", Severity: report.Error,
	Summary: "An entry's calls are listed on its plan step, and a plan step with calls is matched by an entry naming them (reading 5)."}, UsesPlan: true})

// entryCalls checks reading 5: an entry's calls are listed on its plan step,
// and a plan step with calls is matched by an entry naming them.
func (c *checker) entryCalls(e *entry, s *Step, id string) {
	for i, name := range e.w.Calls {
		if !slices.Contains(s.Calls, name) {
			c.add(finding{rule: RuleEntryCalls, at: e.at("/calls/" + strconv.Itoa(i)), rel: []report.Location{c.rel(s)},
				msg:  fmt.Sprintf("entry %q calls %q, which its plan step does not list (plan calls: %v)", report.Clip(id), report.Clip(name), report.Clips(s.Calls)),
				hint: "the Engine executes only what the validated program says (§5.8.4)"})
		}
	}
	o := e.w.Outcome
	if len(s.Calls) > 0 && len(e.w.Calls) == 0 && o != nil && o.OK != nil && *o.OK {
		c.add(finding{rule: RuleEntryCalls, at: e.site, rel: []report.Location{c.rel(s)},
			msg:  fmt.Sprintf("entry %q succeeded but names no calls; its plan step calls %v", report.Clip(id), report.Clips(s.Calls)),
			hint: "every trace entry that invokes a catalog entry identifies it in calls, at every level (reading 5)"})
	}
}
