package replay

import (
	"fmt"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// RuleExpectedSet is the ID of the rule the checks cite as it.
const RuleExpectedSet = "expected-set"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleExpectedSet, Category: CatCorrespondence, Section: "5.8.4", Severity: report.Error,
	Summary: "Every unprefixed entry maps to the expected set of the decisions taken (readings 1 and 4)."}, UsesPlan: true})

// unplanned handles an unprefixed entry whose base is no plan step
// (reading 4): an error for control flow and for entries that call
// something, otherwise info in a completed Run and an error in one that
// did not complete.
func (c *checker) unplanned(e *entry, kind, id string) {
	base := pilotage.BaseID(id)
	switch {
	case kind == pilotage.KindBranch || kind == pilotage.KindLoop:
		c.add(finding{rule: RuleExpectedSet, at: e.at("/id"),
			msg: fmt.Sprintf("%s entry %q has no plan step %q; branch and loop entries are never unplanned (reading 4)", report.Clip(kind), report.Clip(id), report.Clip(base))})
	case len(e.w.Calls) > 0:
		c.add(finding{rule: RuleExpectedSet, at: e.at("/id"),
			msg:  fmt.Sprintf("entry %q calls %v but the plan has no step %q", report.Clip(id), report.Clips(e.w.Calls), report.Clip(base)),
			hint: "a step that invokes catalog entries has an external effect and is part of the plan (§5.6)"})
	default:
		msg := fmt.Sprintf("entry %q has no plan step %q", report.Clip(id), report.Clip(base))
		c.add(finding{rule: RuleExpectedSet, sev: report.Info, c: ifComplete, at: e.at("/id"), msg: msg + "; taken as a pure step the plan left out",
			hint: "reading 4: steps with no external effect may be left out of the plan; engines that do so should leave them out of traces too"})
		c.add(finding{rule: RuleExpectedSet, c: ifIncomplete, at: e.at("/id"), msg: msg,
			hint: "in a Run that did not complete every unprefixed entry maps to the expected set (§5.8.4)"})
	}
}
