package rules

import (
	"fmt"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// closedSetsFormat checks that the closed-sets guide can be read: it has
// a body, it is Markdown, and it follows closed-sets-format.md. A guide
// that cannot be read is reported as such, never passed silently (§5.2
// requires every closed set to be enumerated, and only a readable guide
// shows that). The other closed-sets rules skip a section reported here.
var closedSetsFormat = &lint.Rule{
	ID:       "closed-sets-format",
	Category: lint.CatClosedSets,
	Section:  "5.2",
	Severity: report.Error,
	Summary:  "The closed-sets guide must have a Markdown body in the shape of closed-sets-format.md, or it cannot be checked.",
	Check: func(p *lint.Pass) {
		for _, l := range p.Languages {
			found := closedSetsGuides(l)
			if len(found) != 1 {
				continue // closed-sets-guide reports none or several
			}
			g := found[0]
			if !isMarkdown(g) {
				p.Report(g.Pointer()+"/media_type", fmt.Sprintf("the closed-sets %s has media_type %q, so it cannot be checked: the closed-sets format is Markdown",
					guideLabel(g), report.Clip(g.Node.Get("media_type").String())),
					"write the closed-sets guide as Markdown and set \"media_type\": \"text/markdown\" (or leave it out)")
				continue
			}
			if !g.HasBody {
				p.Report(g.Pointer(), fmt.Sprintf("the closed-sets %s has no body, so none of %s's closed sets can be checked", guideLabel(g), langLabel(l)),
					"capture the guide in its fetch form, with \"body\"")
				continue
			}
			parsed := l.ClosedSets().Parsed
			if len(parsed.Sections) == 0 && len(parsed.Problems) == 0 {
				p.ReportLine(g, 1, "the closed-sets guide has none of the sections of closed-sets-format.md, so it cannot be checked",
					"enumerate the sets under level-2 headings such as \"## Diagnostic codes\", each with a GFM table; pilotage build writes the guide in this shape")
				continue
			}
			for _, pr := range parsed.Problems {
				msg := pr.Message + "; the whole guide cannot be checked"
				if pr.Section != "" {
					msg = pr.Message + fmt.Sprintf("; the %q section cannot be checked", report.Clip(pr.Section))
				}
				p.ReportLine(g, pr.Line, msg, "follow closed-sets-format.md: a level-2 heading per set, then a GFM table whose first column holds the values")
			}
		}
	},
}

func init() { register(closedSetsFormat) }
