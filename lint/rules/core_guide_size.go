package rules

import (
	"fmt"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// coreGuideSize checks the §5.2 recommendation that a core guide's
// size_bytes stays within 8192 bytes, so a context-constrained client can
// afford the minimum instruction set. It reads size_bytes, the number a
// client sees before fetching; guide-size-bytes checks that it is true.
var coreGuideSize = &lint.Rule{
	ID:       "core-guide-size",
	Category: lint.CatGuides,
	Section:  "5.2",
	Severity: report.Warning,
	Summary:  "A core guide's `size_bytes` should be no greater than 8192.",
	Check: func(p *lint.Pass) {
		for _, l := range p.Languages {
			for _, g := range l.Guides {
				if g.Level != pilotage.GuideCore {
					continue
				}
				size, shown, ok := sizeValue(g.Node.Get("size_bytes"))
				if !ok || size <= pilotage.CoreGuideMaxBytes {
					continue
				}
				p.Report(g.Pointer()+"/size_bytes",
					fmt.Sprintf("core %s is %s bytes, more than the %d §5.2 recommends; a context-constrained client must read all of it before writing a program",
						guideLabel(g), shown, pilotage.CoreGuideMaxBytes),
					"keep the core guide to what every program needs and move the rest into guides with \"level\": \"reference\" or \"example\"")
			}
		}
	},
}

func init() { register(coreGuideSize) }
