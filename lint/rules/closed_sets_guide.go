package rules

import (
	"fmt"
	"strconv"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// closedSetsGuide checks §5.2: exactly one guide of each Language carries
// the reserved topic `closed-sets`, and it has level `reference`.
var closedSetsGuide = &lint.Rule{
	ID:       "closed-sets-guide",
	Category: lint.CatGuides,
	Section:  "5.2",
	Severity: report.Error,
	Summary:  "Exactly one guide of every Language must have the topic `closed-sets`, and it must have `level: \"reference\"`.",
	Check: func(p *lint.Pass) {
		for _, l := range p.Languages {
			if !l.HasGuides {
				continue // snapshot-guides reports a Language without guides
			}
			found := closedSetsGuides(l)
			if len(found) == 0 {
				p.Report(l.GuidesPtr, fmt.Sprintf("%s has no guide with the topic \"closed-sets\", so its closed sets (diagnostic codes, statuses, kinds, risk levels) are enumerated nowhere", langLabel(l)),
					"add a guide with \"level\": \"reference\" and \"topics\": [\"closed-sets\"] in the shape of closed-sets-format.md; pilotage build writes one")
				continue
			}
			for _, g := range found[1:] {
				at := -1
				for i, t := range g.Topics() {
					if t == pilotage.TopicClosedSets {
						at = i
						break
					}
				}
				p.Report(g.Pointer()+"/topics/"+strconv.Itoa(at),
					fmt.Sprintf("%s is a second guide with the topic \"closed-sets\" (the first is %s); a client cannot tell which one enumerates the closed sets", guideLabel(g), guideLabel(found[0])),
					"merge the closed sets into one guide and remove the topic from the others")
			}
			for _, g := range found {
				if lv := g.Node.Get("level"); lv.Is(jsonpos.String) && lv.Str() != pilotage.GuideReference {
					p.Report(g.Pointer()+"/level", fmt.Sprintf("the closed-sets %s has level %q; §5.2 requires \"reference\"", guideLabel(g), report.Clip(lv.Str())),
						"set \"level\": \"reference\"")
				}
			}
		}
	},
}

func init() { register(closedSetsGuide) }
