package replay

import (
	"fmt"
	"strconv"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// RuleDecisionAt is the ID of the rule the checks cite as it.
const RuleDecisionAt = "decision-at"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleDecisionAt, Category: CatControlFlow, Section: "5.8", Severity: report.Error,
	Summary: "A decision's at is its construct's step identifier or the complete trace id of its entry (reading 2, amended)."}})

// decisionsAt checks reading 2 as docs/readings.md amends it: at
// identifies the construct (§5.8) by the entry's complete trace id or by
// the construct's step identifier, the id's base (§5.8.2). Branches and
// loops share the decision form, so they share the rule. Nothing in
// between is taken: on an expanded entry "outer#1/hot#2", "hot#2" can be
// the id of another entry of the same trace (the caller's own step hot).
func (c *checker) decisionsAt(e *entry, id string, s *Step) {
	base := pilotage.BaseID(id)
	for i, d := range e.w.Decisions {
		if d.At == id || (base != "" && d.At == base) {
			continue
		}
		msg := fmt.Sprintf("decision at %q on entry %q; at is the entry's complete trace id %q", report.Clip(d.At), report.Clip(id), report.Clip(id))
		switch base {
		case "": // a malformed id, which trace-id-syntax reports, has no step identifier
		case id: // outside loops and sub-programs the two forms are one string
			msg += ", which is also its construct's step identifier"
		default:
			msg += fmt.Sprintf(" or its construct's step identifier %q", report.Clip(base))
		}
		c.add(finding{rule: RuleDecisionAt, at: e.at("/decisions/" + strconv.Itoa(i) + "/at"), rel: c.rels(s), msg: msg,
			hint: "§5.8: at identifies the branch or loop construct, by the complete trace id of its entry (qualifiers and prefixes included) or by its program step identifier alone (reading 2, docs/readings.md)"})
	}
}
