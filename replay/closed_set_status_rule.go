package replay

import (
	"fmt"
	"strings"

	"github.com/pilotage-dev/pilotage/internal/base/closedsets"
	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// RuleClosedSetStatus is the ID of the rule the checks cite as it.
const RuleClosedSetStatus = "closed-set-status"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleClosedSetStatus, Category: CatClosedSets, Section: "1.5", Severity: report.Error,
	Summary: "Run and step statuses are listed in the Language's closed-sets guide, with the ok it gives them."}})

// listed checks a status against a closed-sets table (§1.5).
func (c *checker) listed(at site, which string, table []closedsets.Status, st string, ok bool) {
	if len(table) == 0 {
		return // the guide has no such table; pilotage lint reports that
	}
	var names []string
	for _, r := range table {
		if r.Status == st {
			if r.OK != ok {
				c.add(finding{rule: RuleClosedSetStatus, at: at,
					msg: fmt.Sprintf("%s status %q has ok %v, but the closed-sets guide lists it with ok %v", report.Clip(which), report.Clip(st), ok, r.OK)})
			}
			return
		}
		names = append(names, r.Status)
	}
	c.add(finding{rule: RuleClosedSetStatus, at: at,
		msg:  fmt.Sprintf("%s status %q is not in the Language's closed-sets guide (%s)", report.Clip(which), report.Clip(st), strings.Join(report.Clips(names), ", ")),
		hint: "every status an Engine uses is enumerated in the closed-sets guide (§1.5, §5.7)"})
}
