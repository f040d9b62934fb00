package rules

import (
	"fmt"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// guideIDUnique checks reading 13 of data-model.md: guide ids are unique
// within a Language, since learn fetches a guide by id (§6.2) and clients
// key their caches by it (§3.3).
var guideIDUnique = &lint.Rule{
	ID:       "guide-id-unique",
	Category: lint.CatGuides,
	Section:  "5.2",
	Severity: report.Error,
	Summary:  "Guide ids must be unique within a Language.",
	Check: func(p *lint.Pass) {
		for _, l := range p.Languages {
			first := map[string]*lint.Guide{}
			for _, g := range l.Guides {
				if g.ID == "" {
					continue
				}
				if f, dup := first[g.ID]; dup {
					p.Report(g.Pointer()+"/id", fmt.Sprintf("%s has two guides with the id %q (%s and %s); a fetch by id cannot tell them apart",
						langLabel(l), report.Clip(g.ID), guideIndex(f), guideIndex(g)),
						"give every guide of the Language its own id")
					continue
				}
				first[g.ID] = g
			}
		}
	},
}

func init() { register(guideIDUnique) }
