package rules

import (
	"fmt"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// coreGuide checks §5.2: every Language has at least one core guide, the
// minimum a client retrieves before writing a program.
var coreGuide = &lint.Rule{
	ID:       "core-guide",
	Category: lint.CatGuides,
	Section:  "5.2",
	Severity: report.Error,
	Summary:  "Every Language must have at least one guide with `level: \"core\"`.",
	Check: func(p *lint.Pass) {
		for _, l := range p.Languages {
			if !l.HasGuides {
				continue // snapshot-guides reports a Language without guides
			}
			found := false
			for _, g := range l.Guides {
				found = found || g.Level == pilotage.GuideCore
			}
			if !found {
				p.Report(l.GuidesPtr, fmt.Sprintf("%s has no guide with level \"core\", so a client has no minimum instruction set to start from", langLabel(l)),
					"add a guide with \"level\": \"core\" that teaches the whole Language briefly, by a complete example program (at most 8192 bytes)")
			}
		}
	},
}

func init() { register(coreGuide) }
