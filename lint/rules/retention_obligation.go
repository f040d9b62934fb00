package rules

import (
	"fmt"
	"strings"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// retentionObligation checks §4.3 rule 5: trace_fetch is the door to
// stored Runs, so it cannot be declared by a Language that stores none.
// A zero duration such as "PT0S" keeps nothing either and is treated like
// "none" (docs/rules/retention-value.md explains the reading).
var retentionObligation = &lint.Rule{
	ID:       "retention-obligation",
	Category: lint.CatCapabilities,
	Section:  "4.3",
	Severity: report.Error,
	Summary:  "A Language must not declare `trace_fetch` when its `retention` is \"none\".",
	Check: func(p *lint.Pass) {
		for _, l := range p.Languages {
			if !l.Caps.Has(pilotage.CapTraceFetch) {
				continue
			}
			r, ok := stringField(l, "retention")
			if !ok || !retainsNothing(r) {
				continue
			}
			msg := fmt.Sprintf("%s declares \"trace_fetch\" but its retention is %q, so no Run can ever be fetched", langLabel(l), report.Clip(r))
			hint := "drop \"trace_fetch\" and \"loop.trace\", or declare a retention that keeps Runs: \"session\" or a duration such as \"P7D\""
			// Point at this Language's own trace_fetch; a Server-level one
			// is shared, so the Language's retention is the place to fix.
			if ptr, key := capSite(p, l, pilotage.CapTraceFetch); key && strings.HasPrefix(ptr, l.Pointer+"/") {
				p.ReportKey(ptr, msg, hint)
			} else {
				p.Report(l.Pointer+"/retention", msg, hint)
			}
		}
	},
}

// retainsNothing reports whether retention value r commits to keeping no
// Run: "none", or an ISO 8601 duration of zero.
func retainsNothing(r string) bool {
	if r == pilotage.RetentionNone {
		return true
	}
	d, err := pilotage.ParseISODuration(r)
	return err == nil && d == 0
}

func init() { register(retentionObligation) }
