package replay

import (
	"fmt"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// RuleLevelContent is the ID of the rule the checks cite as it.
const RuleLevelContent = "level-content"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleLevelContent, Category: CatLevels, Section: "5.8.1", Severity: report.Error,
	Summary: "At full every non-control-flow entry that made its call carries input; at summary no entry does (reading 6, amended)."}})

// levels checks what an entry carries at each level (§5.8.1, reading 6).
// The level may come after the steps, so both readings are kept.
func (c *checker) levels(e *entry, kind string, s *Step) {
	id := *e.w.ID
	if len(e.w.Input) > 0 {
		// Checked here so a full trace, every entry of which has input,
		// costs no message per entry.
		if c.admit(RuleLevelContent, "", ifSummary, e.site) {
			c.keep(finding{rule: RuleLevelContent, c: ifSummary, at: e.at("/input"), rel: c.rels(s),
				msg: fmt.Sprintf("entry %q carries input, which a summary trace omits", report.Clip(id))})
		}
		return
	}
	if kind != pilotage.KindBranch && kind != pilotage.KindLoop && !madeNoCall(&e.w) && c.admit(RuleLevelContent, "", ifFull, e.site) {
		c.keep(finding{rule: RuleLevelContent, c: ifFull, at: e.site, rel: c.rels(s),
			msg:  fmt.Sprintf("entry %q has no input; at full every executed step carries its input", report.Clip(id)),
			hint: "only branch and loop entries, and failed entries that name no call, may omit input at full (reading 6, docs/readings.md)"})
	}
}
