package rules

import (
	"fmt"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// guideSizeBytes checks reading 13 of data-model.md: a guide's size_bytes
// is the UTF-8 byte length of its body, the number a client budgets its
// context with before fetching (§5.2). A snapshot guide without a body
// cannot be checked, which is said rather than passed silently.
var guideSizeBytes = &lint.Rule{
	ID:       "guide-size-bytes",
	Category: lint.CatGuides,
	Section:  "5.2",
	Severity: report.Error,
	Summary:  "A guide's `size_bytes` must equal the UTF-8 byte length of its body.",
	Check: func(p *lint.Pass) {
		for _, l := range p.Languages {
			for _, g := range l.Guides {
				size, shown, ok := sizeValue(g.Node.Get("size_bytes"))
				switch {
				case !g.HasBody:
					p.ReportAs(report.Warning, g.Pointer(), false,
						fmt.Sprintf("%s has no body in the snapshot, so its size_bytes and content cannot be checked", guideLabel(g)),
						"capture every guide in its fetch form, with \"body\" (data-model.md, the snapshot file)")
				case ok && size != int64(len(g.Body)):
					p.Report(g.Pointer()+"/size_bytes",
						fmt.Sprintf("%s has size_bytes %s, but its body is %d bytes of UTF-8", guideLabel(g), shown, len(g.Body)),
						fmt.Sprintf("set \"size_bytes\": %d", len(g.Body)))
				}
			}
		}
	},
}

func init() { register(guideSizeBytes) }
