package conform

import (
	"encoding/json"
	"fmt"

	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// RulePlanIDsStable is the ID of the rule that validates the --program a
// second time and compares the plans' step ids: a Language that generates
// ids for a grammar without native ones must give the same ids for the
// same text at the same catalog_version (§3.4). That the trace uses the
// plan's ids is replay's correspondence check on the Run.
const RulePlanIDsStable = "plan-ids-stable"

var _ = registry.Register(&report.RuleInfo{ID: RulePlanIDsStable, Category: "operations", Section: "3.4", Severity: report.Error,
	Summary: "Two validates of the same program at the same catalog_version give plans with the same step ids, in the same order."})

// planIDs are a validate answer's catalog_version and plan step ids.
func planIDs(raw json.RawMessage) (version string, ids []string) {
	var v struct {
		CatalogVersion string `json:"catalog_version"`
		Plan           *struct {
			Steps []struct {
				ID string `json:"id"`
			} `json:"steps"`
		} `json:"plan"`
	}
	_ = json.Unmarshal(raw, &v)
	if v.Plan != nil {
		for _, s := range v.Plan.Steps {
			ids = append(ids, s.ID)
		}
	}
	return v.CatalogVersion, ids
}

// planIDsStable validates prog again and compares the plan's step ids
// with first's, when the catalog did not change in between.
func (c *checker) planIDsStable(validate string, prog any, first answer) {
	again := c.call(validate, map[string]any{"program": prog})
	if !c.expect(again, "second validate of "+c.opt.Program.File) {
		return
	}
	v1, ids1 := planIDs(first.raw)
	v2, ids2 := planIDs(again.raw)
	if v1 != v2 {
		c.status("the catalog changed between two validates (%s, %s); step ids not compared", v1, v2)
		return
	}
	for i := range max(len(ids1), len(ids2)) {
		a, b := "(none)", "(none)"
		if i < len(ids1) {
			a = ids1[i]
		}
		if i < len(ids2) {
			b = ids2[i]
		}
		if a != b {
			c.find(RulePlanIDsStable, again.op, fmt.Sprintf("/structuredContent/plan/steps/%d/id", i),
				"validating %s twice gave plan step %d the ids %q and %q; ids must be the same for the same program text (§3.4)", c.opt.Program.File, i, report.Clip(a), report.Clip(b))
			return
		}
	}
}
