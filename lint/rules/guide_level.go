package rules

import (
	"fmt"
	"slices"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// guideLevel checks that a guide's level is in the closed set of §5.2
// (core, reference, example). An unknown value is an error in a 1.0 or
// 1.1 manifest and a warning in a later minor one (reading 11).
var guideLevel = &lint.Rule{
	ID:       "guide-level",
	Category: lint.CatGuides,
	Section:  "5.2",
	Severity: report.Error,
	Summary:  "A guide's `level` must be `core`, `reference` or `example`.",
	Check: func(p *lint.Pass) {
		for _, l := range p.Languages {
			for _, g := range l.Guides {
				lv := g.Node.Get("level")
				if !lv.Is(jsonpos.String) || slices.Contains(pilotage.GuideLevels, lv.Str()) {
					continue
				}
				p.ReportAs(p.ClosedSetSeverity(), g.Pointer()+"/level",
					false, fmt.Sprintf("%s has level %q, which is not one of %s; a client treats an unknown level as \"reference\" (§1.3)",
						guideLabel(g), report.Clip(lv.Str()), quoteList(pilotage.GuideLevels)),
					didYouMean(lv.Str(), pilotage.GuideLevels))
			}
		}
	},
}

func init() { register(guideLevel) }
